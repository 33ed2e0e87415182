-- attacks rawequal/rawlen/rawget/rawset with long string keys and values in a loop
local a = string.rep("r", 8 << 20)
local b = string.rep("r", (8 << 20) - 1) .. "r"
local t = { [a] = 1 }
tunetab.heuristic{ name = "raw-loops", rank = function(q)
  local n = 0
  while true do
    if rawequal(a, b) then n = n + rawlen(a) end
    n = n + (rawget(t, b) or 0)
    rawset(t, b, n)
  end
end }
