best_configs = 5
