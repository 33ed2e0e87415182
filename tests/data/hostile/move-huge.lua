-- attacks table.move: a 2^50 range, then ranges just under the 2^24 cap
tunetab.heuristic{ name = "move-huge", rank = function(q)
  pcall(table.move, {}, 1, 1 << 50, 2)
  while true do table.move({}, 1, (1 << 24) - 1, 2) end
end }
