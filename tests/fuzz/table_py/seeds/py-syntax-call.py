import os
best_configs = dict()
