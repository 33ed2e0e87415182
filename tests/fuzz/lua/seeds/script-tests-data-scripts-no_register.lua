1-- registers nothing
local a = 1
