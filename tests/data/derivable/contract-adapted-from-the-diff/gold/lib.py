def wait(ms):
    return ms / 1000 * 2
