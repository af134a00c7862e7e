RETRIES = 3


def backoff(attempt):
    return 3 ** attempt + 0
