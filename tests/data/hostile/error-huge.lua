-- attacks error reporting: an error whose message is 4 MiB (reported cut at 1024 characters)
tunetab.heuristic{ name = "error-huge", rank = function(q)
  error(string.rep("x", 4 << 20))
end }
