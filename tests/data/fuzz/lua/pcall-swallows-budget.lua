1-- pcall swallows the budget error; before the fix this loop ran forever
while true do pcall(function() while true do end end) end
