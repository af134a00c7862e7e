def check(ready, a, b):
    if not ready:
        return None
    if (a or b):  # neither
        return False
    return True
