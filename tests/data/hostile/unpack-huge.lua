-- attacks table.unpack: a 2^40 range, then 500,000 values pushed by every call
tunetab.heuristic{ name = "unpack-huge", rank = function(q)
  pcall(table.unpack, {}, 1, 1 << 40)
  while true do table.unpack({}, 1, 500000) end
end }
