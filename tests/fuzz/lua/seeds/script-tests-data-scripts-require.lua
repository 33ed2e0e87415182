1local m = require("os")
