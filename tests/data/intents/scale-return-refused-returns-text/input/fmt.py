def percent(ratio):
    """Format a ratio (0.25) as a percentage string ('25.0%')."""
    return f"{ratio * 100:.1f}%"


def shares(parts):
    return [percent(p) for p in parts]
