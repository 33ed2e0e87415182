-- registers nothing
local a = 1
