-- attacks string.rep with an empty string and a separator: 10^8 separators copied a byte each
tunetab.heuristic{ name = "rep-separator", rank = function(q)
  return { string.rep("", 100000000, ",") }
end }
