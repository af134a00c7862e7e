import math

import pytest

import pipeline as pl
from pipeline import Pipeline


def test_step_names():
    assert pl.STEP_NAMES == ("clean", "clip", "scale", "smooth", "normalise", "diff", "cumulate")


# --- Pipeline object --------------------------------------------------------

def test_pipeline_defaults():
    pipe = Pipeline()
    assert pipe.name == "pipeline"
    assert pipe.min_length == 1
    assert pipe.steps == []
    assert pipe.log == []
    assert pipe.run([3, 1, 2]) == [3, 1, 2]
    assert pipe.describe() == "pipeline: "


def test_pipeline_min_length_validation():
    with pytest.raises(ValueError, match="min_length must be at least 1"):
        Pipeline(min_length=0)
    assert Pipeline(min_length=1).min_length == 1
    assert Pipeline(name="x", min_length=4).min_length == 4


def test_pipeline_add_returns_self_and_rejects_unknown():
    pipe = Pipeline()
    assert pipe.add("scale", factor=2) is pipe
    assert pipe.steps == [("scale", {"factor": 2})]
    with pytest.raises(ValueError, match="unknown step: sort"):
        pipe.add("sort")
    assert len(pipe.steps) == 1


@pytest.mark.parametrize("step,options,values,expected", [
    ("clean", {"threshold": 1}, [2, 4, 4, 4, 5, 5, 7, 9], [4, 4, 4, 5, 5, 7]),
    ("clip", {"low": 0, "high": 5}, [-1, 3, 8], [0, 3, 5]),
    ("scale", {"factor": 10, "offset": 1}, [1, 2], [11, 21]),
    ("smooth", {"size": 2}, [1, 3, 5], [2.0, 4.0]),
    ("normalise", {"method": "total"}, [1, 3], [0.25, 0.75]),
    ("diff", {"lag": 2}, [1, 2, 4, 8], [3, 6]),
    ("cumulate", {"mode": "max"}, [2, 1, 3], [2, 2, 3]),
    ("cumulate", {}, [2, 1, 3], [2, 3, 6]),
])
def test_each_step(step, options, values, expected):
    pipe = Pipeline().add(step, **options)
    assert pipe.apply_step(step, options, values) == expected
    assert pipe.run(values) == expected
    assert pipe.log == [f"{step}:{len(expected)}"]


def test_run_chains_steps_and_logs():
    pipe = Pipeline(name="chain").add("scale", factor=2).add("diff").add("cumulate")
    assert pipe.run([1, 2, 4, 7]) == [2, 6, 12]
    assert pipe.log == ["scale:4", "diff:3", "cumulate:3"]
    assert pipe.run((5, 5)) == [0.0]
    assert pipe.log == ["scale:2", "diff:1", "cumulate:1"]


def test_run_enforces_min_length():
    pipe = Pipeline(name="short", min_length=3).add("diff")
    assert pipe.run([1, 2, 4, 8]) == [1, 2, 4]
    with pytest.raises(ValueError, match="short: step diff left 2 values, need 3"):
        pipe.run([1, 2, 4])
    assert pipe.log == ["diff:2"]
    with pytest.raises(ValueError, match="pipeline: step diff left 0 values, need 1"):
        Pipeline().add("diff").run([5])


def test_run_validates_input():
    with pytest.raises(ValueError, match="must not be empty"):
        Pipeline().run([])
    with pytest.raises(TypeError, match="must be a list or tuple"):
        Pipeline().run("12")


def test_describe():
    pipe = Pipeline(name="p").add("clip", low=0, high=1).add("diff")
    assert pipe.describe() == "p: clip(high=1, low=0) -> diff()"


# --- presets ----------------------------------------------------------------

def test_standard_pipeline():
    pipe = pl.standard_pipeline()
    assert pipe.name == "standard"
    assert pipe.min_length == 2
    assert pipe.describe() == (
        "standard: clean(method=iqr, threshold=1.5) -> smooth(mode=median, size=2)"
        " -> normalise(method=minmax, target_max=100.0)"
    )
    assert pipe.run([10, 12, 11, 13, 50, 12, 14, 9]) == [0.0, 25.0, 50.0, 75.0, 100.0, 25.0]
    assert pipe.log == ["clean:7", "smooth:6", "normalise:6"]


def test_standard_pipeline_keeps_moderate_values():
    # 21 lies inside the 1.5 * IQR band [6, 22] but outside a 1.0 * IQR band
    result = pl.standard_pipeline().run([10, 12, 14, 16, 21])
    assert result == pytest.approx([0.0, 80 / 3, 160 / 3, 100.0])


def test_standard_pipeline_min_length():
    with pytest.raises(ValueError, match="standard: step smooth left 1 values, need 2"):
        pl.standard_pipeline().run([1, 2])


def test_growth_pipeline():
    pipe = pl.growth_pipeline()
    assert pipe.name == "growth"
    assert pipe.min_length == 1
    assert pipe.describe() == "growth: diff(lag=1) -> clip(high=10, low=-10) -> cumulate(mode=sum)"
    assert pipe.run([100, 104, 130, 125, 90, 95]) == [4, 14, 9, -1, 4]
    assert pipe.log == ["diff:5", "clip:5", "cumulate:5"]


# --- helpers ----------------------------------------------------------------

OUTLIERS = [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 16, 30]


def test_clean_series_strictness():
    assert pl.clean_series(OUTLIERS, strictness="strict") == OUTLIERS[:10]
    assert pl.clean_series(OUTLIERS) == OUTLIERS[:11]
    assert pl.clean_series(OUTLIERS, strictness="normal") == OUTLIERS[:11]
    assert pl.clean_series(OUTLIERS, strictness="loose") == OUTLIERS
    assert pl.clean_series(OUTLIERS + [60], strictness="loose") == OUTLIERS


def test_clean_series_normal_band():
    base = [1, 2, 3, 4, 5, 6, 7, 8, 9, 10]
    # with either extra value the 1.5 * IQR band is [-4.0, 16.0]; a 2.0 band or a z-score
    # band would treat 12 and 17 differently
    assert pl.clean_series(base + [12]) == base + [12]
    assert pl.clean_series(base + [17]) == base
    assert pl.clean_series(base + [17], strictness="normal") == base


def test_clean_series_unknown():
    with pytest.raises(ValueError, match="unknown strictness: extreme"):
        pl.clean_series(OUTLIERS, strictness="extreme")


def test_recency_weights():
    assert pl.recency_weights(1) == [1]
    assert pl.recency_weights(4) == [1, 2, 3, 4]
    assert pl.recency_weights(3, boost=2) == [1, 3, 5]
    assert pl.recency_weights(3, boost=0) == [1, 1, 1]
    with pytest.raises(ValueError, match="count must be at least 1"):
        pl.recency_weights(0)


def test_recent_average():
    # weights 1, 3, 5
    assert pl.recent_average([10, 20, 30]) == pytest.approx(220 / 9)
    assert pl.recent_average([10, 20, 30], boost=1) == pytest.approx(140 / 6)
    assert pl.recent_average([10, 20, 30], boost=0) == 20.0
    assert pl.recent_average([7]) == 7.0
    with pytest.raises(ValueError, match="count must be at least 1"):
        pl.recent_average([])


def test_summarize():
    summary = pl.summarize([4, 8, 15, 16, 23, 42])
    assert summary["count"] == 6
    assert summary["sum"] == 108
    assert summary["mean"] == 18.0
    assert summary["median"] == 15.5
    assert summary["trimmed"] == 15.5
    assert summary["std"] == pytest.approx(math.sqrt(910 / 5))
    assert summary["p90"] == 32.5
    assert summary["outliers"] == [42]
    assert summary["histogram"] == [2, 2, 1, 1]
    assert len(summary) == 9


def test_summarize_bins_and_small_inputs():
    assert pl.summarize([1, 2, 3, 4], bins=2)["histogram"] == [2, 2]
    assert pl.summarize([1, 2, 3, 4, 5, 6, 7, 8])["histogram"] == [2, 2, 2, 2]
    single = pl.summarize([5])
    assert single["std"] == 0.0
    assert single["histogram"] == [1]
    assert single["outliers"] == []
    pair = pl.summarize([1, 3])
    assert pair["std"] == pytest.approx(math.sqrt(2))
    flat = pl.summarize([3, 3, 3])
    assert flat["histogram"] == [3]
    assert flat["std"] == 0.0
    with pytest.raises(ValueError, match="must not be empty"):
        pl.summarize([])


def test_compare_series():
    result = pl.compare_series([1, 12, 25], [14, 15, 40, -6])
    assert result["median_shift"] == 2.5
    assert result["mean_shift"] == pytest.approx(63 / 4 - 38 / 3)
    assert result["buckets"] == {-15: 1, -5: 1, 5: 2, 15: 1, 25: 1, 35: 1}


def test_compare_series_validation():
    with pytest.raises(ValueError, match="must not be empty"):
        pl.compare_series([], [1])
    with pytest.raises(TypeError, match="must be a list or tuple"):
        pl.compare_series([1], "1")
