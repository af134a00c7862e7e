def completion_fraction(done, total):
    """Return how much of ``total`` is done, as a fraction."""
    if total <= 0:
        raise ValueError("nothing to do")
    return done / total


def summary(done, total):
    return f"{completion_fraction(done, total) * 100:.0f}% done"
