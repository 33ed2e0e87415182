-- attacks utf8.codes' iterators called by hand at a long run of continuation bytes (strict and lax)
local s = "a" .. string.rep("\x80", 16 << 20)
tunetab.heuristic{ name = "utf8-codes-by-hand", rank = function(q)
  local strict = utf8.codes("a")
  local lax = utf8.codes("a", true)
  while true do
    pcall(lax, s, 1)
    pcall(strict, s, 1)
    pcall(utf8.offset, s, 2)
  end
end }
