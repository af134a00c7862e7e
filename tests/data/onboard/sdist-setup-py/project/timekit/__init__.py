def now():
    return 0
