def check(ready, a, b):
    if not ready:
        return None
    if not (a or b):  # neither
        return False
    return True
