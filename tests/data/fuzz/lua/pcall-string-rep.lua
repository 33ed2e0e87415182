1while true do pcall(string.rep, "x", 8 << 20) end
