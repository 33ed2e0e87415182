os.execute("touch /tmp/tunetab-pwned")
