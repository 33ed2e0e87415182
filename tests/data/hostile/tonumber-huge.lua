-- attacks tonumber and string arithmetic on a 16 MiB numeric string
local s = "1" .. string.rep("0", 16 << 20)
local z = "0x" .. string.rep("0", 16 << 20) .. "1"
tunetab.heuristic{ name = "tonumber-huge", rank = function(q)
  local n = 0
  while true do
    n = n + (tonumber(s) or 0) + (tonumber(s, 36) or 0)
    n = n + z + 1
  end
end }
