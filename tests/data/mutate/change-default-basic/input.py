def fetch(url, retries=3, *, verbose=False, sep=", ", offset=-1, hook=None, scale=1.5, mode=b'rb'):
    return url
