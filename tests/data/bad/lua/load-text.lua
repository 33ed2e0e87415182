load('os.exit(0)')()
