def fetch(url, retries=3, *, verbose=False, sep=", ", offset=0, hook=None, scale=1.5, mode=b'rb'):
    return url
