-- attacks string.format's %q and %s on a 2 MiB string of bytes that need escaping
local s = string.rep("\0\n\"\\\r", (2 << 20) // 5)
tunetab.heuristic{ name = "format-q", rank = function(q)
  while true do local _ = #string.format("%q", s) + #string.format("%s%s", s, s) end
end }
