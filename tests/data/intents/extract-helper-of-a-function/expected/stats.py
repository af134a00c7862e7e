"""Summaries of samples."""


def describe(samples, precision=2):
    if not samples:
        raise ValueError("no samples")
    # The mean and the spread around it.
    mean = sum(samples) / len(samples)
    spread = _spread(samples, mean)
    return {"mean": round(mean, precision), "spread": round(spread, precision)}


def _spread(samples, mean):
    squares = [(x - mean) ** 2 for x in samples]
    variance = sum(squares) / len(samples)
    spread = variance ** 0.5
    return spread


def median(samples):
    ordered = sorted(samples)
    return ordered[len(ordered) // 2]
