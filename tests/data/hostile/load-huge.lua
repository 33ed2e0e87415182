-- attacks load(): compiling a 4 MiB chunk, again and again under pcall
local src = "return " .. string.rep("1+", 2 << 20) .. "1"
tunetab.heuristic{ name = "load-huge", rank = function(q)
  while true do pcall(load, src) end
end }
