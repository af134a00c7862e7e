def within(x, lo, hi):
    return (lo   # lower bound
            <= x
            and x not in (hi,)   # excluded
            and x is not None)
