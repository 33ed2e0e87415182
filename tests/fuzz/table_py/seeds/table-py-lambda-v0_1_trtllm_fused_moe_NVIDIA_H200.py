best_configs = {"k": (lambda: 0)()}
