-- attacks table.sort's C string comparisons: 64 strings of 512 KiB that differ only at the end
local base = string.rep("s", 512 << 10)
local t = {}
for i = 1, 64 do t[i] = base .. string.char(64 + (i * 37) % 64) end
tunetab.heuristic{ name = "sort-long-strings", rank = function(q)
  while true do
    table.sort(t)
    table.sort(t, function(a, b) return a > b end)
  end
end }
