-- attacks tunetab.lib: a path out of scripts/lib, then libraries that are not there, under pcall
tunetab.heuristic{ name = "lib-traversal", rank = function(q)
  pcall(tunetab.lib, "../..")
  pcall(tunetab.lib, "../../etc/passwd")
  local i = 0
  while true do
    i = i + 1
    pcall(tunetab.lib, "nosuch" .. i)
  end
end }
