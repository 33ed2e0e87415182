1local x = = 1
