def describe(n):
    if n == 0:
        return "zero"
    elif n < 0:  # negative branch
        # keep this comment
        return "negative"
    else:
        return "positive"   # trailing
    if not n:
        pass
    else:
        n = 1
