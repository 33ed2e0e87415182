-- attacks string.find with init near the end: many short plain searches of a long needle's tail
local s = string.rep("a", 8 << 20)
local p = string.rep("a", 4095) .. "b"
tunetab.heuristic{ name = "find-init-near-end", rank = function(q)
  while true do
    s:find(p, -8192, true)
    s:find(p, #s - 4096, true)
    s:find("", #s + 1, true)
  end
end }
