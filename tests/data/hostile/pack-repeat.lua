-- attacks string.pack/packsize/unpack: long formats and huge 'c' sizes padded a byte at a time
local fmt = string.rep("i8", 1 << 20)
tunetab.heuristic{ name = "pack-repeat", rank = function(q)
  pcall(string.pack, "c2000000000", "")
  pcall(string.packsize, string.rep("c1000000000", 3))
  local x = string.pack("xxxxxxxx", 0)
  while true do
    pcall(string.packsize, fmt)
    pcall(string.unpack, fmt, x)
    local _ = string.pack(string.rep("x", 4 << 20))
  end
end }
