-- attacks utf8.codepoint and utf8.char: half a million code points pushed per call, and back
local s = string.rep("a", 500000)
tunetab.heuristic{ name = "utf8-codepoint", rank = function(q)
  while true do
    local _ = utf8.char(utf8.codepoint(s, 1, -1))
    pcall(utf8.codepoint, string.rep("a", 4 << 20), 1, -1)
  end
end }
