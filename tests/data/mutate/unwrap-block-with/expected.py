def read(path):
    data = handle.read()

    # strip it
    return data.strip()
