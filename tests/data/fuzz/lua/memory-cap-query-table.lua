1-- rank() keeps every query and fills the memory cap with small live objects, leaving no
-- garbage: the next query table cannot be allocated
head = nil
local qs, empty = {}, {}
local function fill() while true do head = { head } end end
tunetab.heuristic { name = "fill", rank = function(q)
  qs[#qs + 1] = q
  pcall(fill)
  return empty
end }
