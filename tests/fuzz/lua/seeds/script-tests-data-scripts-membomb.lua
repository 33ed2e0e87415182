1-- grows a string until the memory cap stops it
local s = "x"
while true do s = s .. s end
