def render(x, lo, hi):
    label = "%s" % x
    ok = lo < x < hi
    same = x == lo
    return label if ok else same - x
