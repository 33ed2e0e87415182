debug.sethook()
while true do end
