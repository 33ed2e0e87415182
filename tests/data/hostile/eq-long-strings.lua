-- attacks ==: two distinct equal 16 MiB strings compared (memcmp) by one instruction each time
local a = string.rep("e", 16 << 20)
local b = string.rep("e", (16 << 20) - 1) .. "e"
tunetab.heuristic{ name = "eq-long-strings", rank = function(q)
  local n = 0
  while a == b do n = n + 1 end
end }
