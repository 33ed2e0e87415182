-- attacks one OP_CONCAT of 100 operands of 256 KiB each (25 MiB copied by one instruction)
local a = string.rep("z", 256 << 10)
local src = "local a = ... return a" .. string.rep(" .. a", 99)
local f = load(src)
tunetab.heuristic{ name = "concat-chain", rank = function(q)
  while true do local _ = f(a) end
end }
