-- attacks utf8.len: a 16 MiB string decoded again and again
local s = string.rep("\u{20AC}", (16 << 20) // 3)
tunetab.heuristic{ name = "utf8-len", rank = function(q)
  local n = 0
  while true do n = n + utf8.len(s) + utf8.len(s, 1, -1, true) end
end }
