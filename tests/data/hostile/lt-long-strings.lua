-- attacks <: two 8 MiB strings that differ at the end, compared by strcoll in one instruction
local a = string.rep("l", 8 << 20) .. "a"
local b = string.rep("l", 8 << 20) .. "b"
tunetab.heuristic{ name = "lt-long-strings", rank = function(q)
  local n = 0
  while a < b and a <= b do n = n + 1 end
end }
