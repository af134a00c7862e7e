"""Compose processor functions into named, repeatable pipelines and summaries."""

import processor


STEP_NAMES = ("clean", "clip", "scale", "smooth", "normalise", "diff", "cumulate")


class Pipeline:
    """An ordered list of processing steps applied to a series."""

    def __init__(self, name="pipeline", min_length=1):
        if min_length < 1:
            raise ValueError("min_length must be at least 1")
        self.name = name
        self.min_length = min_length
        self.steps = []
        self.log = []

    def add(self, step, **options):
        if step not in STEP_NAMES:
            raise ValueError(f"unknown step: {step}")
        self.steps.append((step, options))
        return self

    def apply_step(self, step, options, data):
        if step == "clean":
            return processor.filter_outliers(data, **options)
        elif step == "clip":
            return processor.clip(data, **options)
        elif step == "scale":
            return processor.scale(data, **options)
        elif step == "smooth":
            return processor.moving_window(data, **options)
        elif step == "normalise":
            return processor.normalise(data, **options)
        elif step == "diff":
            return processor.differences(data, **options)
        return processor.cumulative(data, **options)

    def run(self, values):
        data = processor.validate_values(values)
        self.log = []
        for step, options in self.steps:
            data = self.apply_step(step, options, data)
            self.log.append(f"{step}:{len(data)}")
            if len(data) < self.min_length:
                raise ValueError(
                    f"{self.name}: step {step} left {len(data)} values, need {self.min_length}"
                )
        return data

    def describe(self):
        parts = []
        for step, options in self.steps:
            settings = []
            for key in sorted(options):
                settings.append(f"{key}={options[key]}")
            parts.append(step + "(" + ", ".join(settings) + ")")
        return self.name + ": " + " -> ".join(parts)


def standard_pipeline():
    """Drop IQR outliers, smooth with a median window and scale to percent."""
    pipeline = Pipeline(name="standard", min_length=2)
    pipeline.add("clean", threshold=1.5, method="iqr")
    pipeline.add("smooth", size=2, mode="median")
    pipeline.add("normalise", method="minmax", target_max=100.0)
    return pipeline


def growth_pipeline():
    """Period-over-period change, clipped, then accumulated."""
    pipeline = Pipeline(name="growth")
    pipeline.add("diff", lag=1)
    pipeline.add("clip", low=-10, high=10)
    pipeline.add("cumulate", mode="sum")
    return pipeline


def clean_series(values, strictness="normal"):
    if strictness == "strict":
        return processor.filter_outliers(values, threshold=1.0, method="iqr")
    elif strictness == "normal":
        return processor.filter_outliers(values, threshold=1.5, method="iqr")
    elif strictness == "loose":
        return processor.filter_outliers(values, threshold=3.0)
    raise ValueError(f"unknown strictness: {strictness}")


def recency_weights(count, boost=1):
    """Weights 1, 1 + boost, 1 + 2*boost, ... favouring later values."""
    if count < 1:
        raise ValueError("count must be at least 1")
    weights = []
    for index in range(count):
        weights.append(1 + index * boost)
    return weights


def recent_average(values, boost=2):
    weights = recency_weights(len(values), boost=boost)
    return processor.aggregate(values, mode="weighted", weights=weights)


def summarize(values, bins=4):
    """A dictionary of descriptive statistics for a series."""
    data = processor.validate_values(values)
    if len(data) > 1:
        spread = processor.std_dev(data, sample=True)
    else:
        spread = 0.0
    if min(data) == max(data):
        histogram = [len(data)]
    else:
        histogram = processor.histogram(data, bins=bins)
    return {
        "count": len(data),
        "sum": processor.aggregate(data),
        "mean": processor.aggregate(data, mode="mean"),
        "median": processor.aggregate(data, mode="median"),
        "trimmed": processor.aggregate(data, mode="trimmed", trim=0.2),
        "std": spread,
        "p90": processor.quantile(data, 0.9),
        "outliers": processor.filter_outliers(data, threshold=1.5, keep_outliers=True),
        "histogram": histogram,
    }


def compare_series(before, after):
    """Shift in median and mean between two series, plus a coarse distribution."""
    combined = processor.validate_values(before) + processor.validate_values(after)
    return {
        "median_shift": processor.median(after) - processor.median(before),
        "mean_shift": processor.mean(after) - processor.mean(before),
        "buckets": processor.bucketize(combined, width=10, origin=5),
    }
