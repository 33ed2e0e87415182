1-- each string.rep is one VM instruction but copies 32 MB: the instruction budget never ends it
for i = 1, 1e9 do local s = string.rep("x", 8 << 20) end
tunetab.heuristic { name = "rep", rank = function(q) return {} end }
