#!/usr/bin/env python3
# vim: set fileencoding=u8 :
best_configs = {
    "('café',)": (0, 1),
}
