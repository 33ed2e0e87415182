# coding: ascii
best_configs = {
    "('a',)": (0, 1),
}
