def run(lock, path):
    with lock:
        message = """first
second"""
    try:
        step()
    finally:
        done()
    try:
        step()
    except OSError:
        pass
    else:
        done()
    with lock: step()
    with lock:
        total = (1 +
    2)
    f.write("x")  # deeper indent
