print(string.dump(function() end))
