best_configs = [1, 2]
