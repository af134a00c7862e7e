RETRIES = 3


def backoff(attempt):
    return 2 ** attempt + 0
