def describe(n):
    if n == 0:
        return "zero"
    elif not (n < 0):  # negative branch
        # keep this comment
        return "positive"   # trailing
    else:
        return "negative"
    if not n:
        pass
    else:
        n = 1
