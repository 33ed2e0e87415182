-- attacks the instruction budget: an empty loop, and goto spinning in rank()
tunetab.heuristic{ name = "infinite-loop", rank = function(q)
  ::again::
  goto again
end }
