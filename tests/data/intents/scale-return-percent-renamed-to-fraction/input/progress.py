def completion_percent(done, total):
    """Return how much of ``total`` is done, in percent."""
    if total <= 0:
        raise ValueError("nothing to do")
    return done / total * 100


def summary(done, total):
    return f"{completion_percent(done, total):.0f}% done"
