-- attacks plain string.find: an 8 MiB text and a 256 KiB "aaa...ab" needle (issue #48: 63 s in C)
local s = string.rep("a", 8 << 20)
local p = string.rep("a", (256 << 10) - 1) .. "b"
tunetab.heuristic{ name = "find-8m-256k", rank = function(q)
  while true do string.find(s, p, 1, true) end
end }
