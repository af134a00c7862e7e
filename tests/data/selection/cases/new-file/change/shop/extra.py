def extra():
    return 1
