import os
os.system("touch /tmp/tunetab-pwned")
best_configs = {}
