-- attacks table functions through a long __index chain (each element read walks 1,900 tables)
local t = {}
for i = 1, 1900 do t = setmetatable({}, { __index = t, __newindex = t }) end
local base = t
for i = 1, 1900 do base = getmetatable(base).__index end
for i = 1, 1000 do base[i] = "c" end
tunetab.heuristic{ name = "index-chain", rank = function(q)
  while true do
    local _ = table.concat(t, "", 1, 1000)
    table.unpack(t, 1, 1000)
  end
end }
