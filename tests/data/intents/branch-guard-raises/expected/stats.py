"""Statistics of small samples."""


def mean(values):
    """The arithmetic mean of `values`."""
    return sum(values) / len(values)


def check(value):
    """Reject negative values."""
    if value < 0:
        raise ValueError(value)
