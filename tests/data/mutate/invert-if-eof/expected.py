if not ready:
    wait()
else:
    start()