def read(path):
    with open(path) as handle:  # opened
        data = handle.read()

        # strip it
        return data.strip()
