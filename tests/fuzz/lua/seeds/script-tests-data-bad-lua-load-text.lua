1load('os.exit(0)')()
