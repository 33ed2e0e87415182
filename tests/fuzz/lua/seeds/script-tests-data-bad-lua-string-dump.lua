1print(string.dump(function() end))
