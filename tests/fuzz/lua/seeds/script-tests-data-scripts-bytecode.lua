1local f, err = load("\27Lua\x54\x00")
assert(f, err)
