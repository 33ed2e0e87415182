1os.execute("touch /tmp/tunetab-pwned")
