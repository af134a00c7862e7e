"""Numeric series processing: validation, aggregation modes, spread, normalisation,
outlier filtering, moving windows, differences, buckets and histograms."""

import math


MODES = ("sum", "mean", "median", "weighted", "trimmed")


def validate_values(values, name="values", allow_empty=False):
    """Return a list copy of values after checking every item is a finite number."""
    if not isinstance(values, (list, tuple)):
        raise TypeError(f"{name} must be a list or tuple")
    if len(values) == 0 and not allow_empty:
        raise ValueError(f"{name} must not be empty")
    cleaned = []
    for index, value in enumerate(values):
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise TypeError(f"{name}[{index}] is not a number")
    for position, value in enumerate(values):
        if isinstance(value, float) and not math.isfinite(value):
            raise ValueError(f"{name}[{position}] is not finite")
        cleaned.append(value)
    return cleaned


def total(values):
    result = 0
    for value in validate_values(values, allow_empty=True):
        result += value
    return result


def mean(values):
    data = validate_values(values)
    return total(data) / len(data)


def median(values):
    data = sorted(validate_values(values))
    middle = len(data) // 2
    if len(data) % 2 == 1:
        return data[middle]
    return (data[middle - 1] + data[middle]) / 2


def weighted_mean(values, weights):
    data = validate_values(values)
    checked = validate_values(weights, name="weights")
    if len(checked) != len(data):
        raise ValueError("weights must match values in length")
    weighted_total = 0
    weight_sum = 0
    for value, weight in zip(data, checked):
        if weight < 0:
            raise ValueError("weights must not be negative")
        weighted_total += value * weight
        weight_sum += weight
    if weight_sum == 0:
        raise ValueError("weights must not all be zero")
    return weighted_total / weight_sum


def trimmed_mean(values, trim=0.1):
    """Mean after dropping the lowest and highest trim fraction of the values."""
    data = sorted(validate_values(values))
    if trim < 0 or trim >= 0.5:
        raise ValueError("trim must be at least 0 and below 0.5")
    cut = int(len(data) * trim)
    kept = data[cut:len(data) - cut]
    return mean(kept)


def aggregate(values, mode="sum", weights=None, trim=0.1):
    """Reduce values to one number using one of MODES."""
    if mode == "sum":
        return total(values)
    elif mode == "mean":
        return mean(values)
    elif mode == "median":
        return median(values)
    elif mode == "weighted":
        if weights is None:
            raise ValueError("weighted mode needs weights")
        return weighted_mean(values, weights)
    elif mode == "trimmed":
        return trimmed_mean(values, trim=trim)
    raise ValueError(f"unknown mode: {mode}")


def variance(values, sample=False):
    data = validate_values(values)
    if sample and len(data) < 2:
        raise ValueError("sample variance needs at least 2 values")
    centre = mean(data)
    squares = 0.0
    for value in data:
        squares += (value - centre) ** 2
    if sample:
        return squares / (len(data) - 1)
    return squares / len(data)


def std_dev(values, sample=False):
    return math.sqrt(variance(values, sample=sample))


def quantile(values, q):
    """Quantile with linear interpolation between closest ranks."""
    data = sorted(validate_values(values))
    if q < 0 or q > 1:
        raise ValueError("q must be between 0 and 1")
    position = q * (len(data) - 1)
    lower = int(position)
    if lower + 1 >= len(data):
        return data[lower]
    fraction = position - lower
    return data[lower] + (data[lower + 1] - data[lower]) * fraction


def normalise(values, method="minmax", target_min=0.0, target_max=1.0):
    """Rescale values: 'minmax' into [target_min, target_max], 'zscore', or 'total' (sum to 1)."""
    data = validate_values(values)
    result = []
    if method == "minmax":
        if target_min >= target_max:
            raise ValueError("target_min must be below target_max")
        low = min(data)
        span = max(data) - low
        for value in data:
            if span == 0:
                result.append(target_min)
            else:
                result.append(target_min + (value - low) / span * (target_max - target_min))
    elif method == "zscore":
        centre = mean(data)
        spread = std_dev(data)
        for value in data:
            if spread == 0:
                result.append(0.0)
            else:
                result.append((value - centre) / spread)
    elif method == "total":
        whole = total(data)
        if whole == 0:
            raise ValueError("cannot normalise values that sum to zero")
        for value in data:
            result.append(value / whole)
    else:
        raise ValueError(f"unknown normalisation method: {method}")
    return result


def outlier_bounds(values, threshold=2.0, method="zscore"):
    """Return the (low, high) band outside which values count as outliers."""
    data = validate_values(values)
    if threshold <= 0:
        raise ValueError("threshold must be positive")
    if method == "zscore":
        centre = mean(data)
        spread = std_dev(data)
        return (centre - threshold * spread, centre + threshold * spread)
    elif method == "iqr":
        q1 = quantile(data, 0.25)
        q3 = quantile(data, 0.75)
        spread = q3 - q1
        return (q1 - threshold * spread, q3 + threshold * spread)
    raise ValueError(f"unknown outlier method: {method}")


def filter_outliers(values, threshold=2.0, method="zscore", keep_outliers=False):
    """Keep values inside the outlier band (or only those outside it)."""
    data = validate_values(values)
    low, high = outlier_bounds(data, threshold=threshold, method=method)
    kept = []
    for value in data:
        inside = low <= value <= high
        if inside != keep_outliers:
            kept.append(value)
    return kept


def clip(values, low, high):
    if low > high:
        raise ValueError("low must not exceed high")
    result = []
    for value in validate_values(values, allow_empty=True):
        if value < low:
            result.append(low)
        elif value > high:
            result.append(high)
        else:
            result.append(value)
    return result


def scale(values, factor=1.0, offset=0.0):
    result = []
    for value in validate_values(values, allow_empty=True):
        result.append(value * factor + offset)
    return result


def moving_window(values, size=3, step=1, mode="mean"):
    """Aggregate each window of size values, advancing by step."""
    data = validate_values(values)
    if size < 1:
        raise ValueError("size must be at least 1")
    if step < 1:
        raise ValueError("step must be at least 1")
    if size > len(data):
        raise ValueError(f"window size {size} exceeds {len(data)} values")
    result = []
    start = 0
    while start + size <= len(data):
        result.append(aggregate(data[start:start + size], mode=mode))
        start += step
    return result


def differences(values, lag=1):
    data = validate_values(values, allow_empty=True)
    if lag < 1:
        raise ValueError("lag must be at least 1")
    result = []
    for index in range(lag, len(data)):
        result.append(data[index] - data[index - lag])
    return result


def cumulative(values, mode="sum"):
    """Running sum, max or min."""
    data = validate_values(values, allow_empty=True)
    if mode not in ("sum", "max", "min"):
        raise ValueError(f"unknown cumulative mode: {mode}")
    result = []
    for index, value in enumerate(data):
        if index == 0:
            running = value
        elif mode == "sum":
            running = running + value
        elif mode == "max":
            running = max(running, value)
        else:
            running = min(running, value)
        result.append(running)
    return result


def bucketize(values, width, origin=0):
    """Count values per bucket [origin + k*width, origin + (k+1)*width)."""
    data = validate_values(values, allow_empty=True)
    if width <= 0:
        raise ValueError("width must be positive")
    counts = {}
    for value in data:
        index = math.floor((value - origin) / width)
        start = origin + index * width
        counts[start] = counts.get(start, 0) + 1
    result = {}
    for start in sorted(counts):
        result[start] = counts[start]
    return result


def histogram(values, bins=5, low=None, high=None):
    """Equal-width bin counts over [low, high]; values outside are ignored."""
    data = validate_values(values)
    if bins < 1:
        raise ValueError("bins must be at least 1")
    if low is None:
        low = min(data)
    if high is None:
        high = max(data)
    if low >= high:
        raise ValueError("histogram range is empty")
    width = (high - low) / bins
    counts = [0] * bins
    for value in data:
        if value < low or value > high:
            continue
        index = int((value - low) / width)
        if index == bins:
            index = bins - 1
        counts[index] += 1
    return counts
