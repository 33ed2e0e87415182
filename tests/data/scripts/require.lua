local m = require("os")
