import math

import pytest

import processor as p


SPREAD = [2, 4, 4, 4, 5, 5, 7, 9]  # mean 5, population std 2


# --- validation -------------------------------------------------------------

def test_validate_values_accepts_lists_and_tuples():
    data = [1, 2.5]
    result = p.validate_values(data)
    assert result == [1, 2.5]
    assert result is not data
    assert p.validate_values((3, 4)) == [3, 4]
    assert isinstance(p.validate_values((3, 4)), list)
    assert p.validate_values([], allow_empty=True) == []


def test_validate_values_errors():
    with pytest.raises(TypeError, match="^values must be a list or tuple$"):
        p.validate_values("123")
    with pytest.raises(TypeError, match="^xs must be a list or tuple$"):
        p.validate_values({1, 2}, name="xs")
    with pytest.raises(ValueError, match="^values must not be empty$"):
        p.validate_values([])
    with pytest.raises(ValueError, match="^xs must not be empty$"):
        p.validate_values((), name="xs")
    with pytest.raises(TypeError, match=r"^values\[1\] is not a number$"):
        p.validate_values([1, "2"])
    with pytest.raises(TypeError, match=r"^values\[0\] is not a number$"):
        p.validate_values([True])
    with pytest.raises(ValueError, match=r"^values\[2\] is not finite$"):
        p.validate_values([1, 2, float("nan")])
    with pytest.raises(ValueError, match=r"^w\[0\] is not finite$"):
        p.validate_values([float("-inf")], name="w")


def test_modes_constant():
    assert p.MODES == ("sum", "mean", "median", "weighted", "trimmed")


# --- basic statistics -------------------------------------------------------

def test_total():
    assert p.total([1, 2, 3]) == 6
    assert isinstance(p.total([1, 2, 3]), int)
    assert p.total([]) == 0
    assert p.total([1.5, -0.5]) == 1.0


def test_mean():
    assert p.mean([1, 2, 3, 4]) == 2.5
    assert p.mean([-3]) == -3.0
    with pytest.raises(ValueError, match="must not be empty"):
        p.mean([])


@pytest.mark.parametrize("values,expected", [
    ([3, 1, 2], 2), ([4, 1, 3, 2], 2.5), ([5], 5), ([1, 9], 5.0), ([7, 1, 3, 9, 5], 5),
    ([10, 2, 8, 4, 6, 100], 7.0),
])
def test_median(values, expected):
    assert p.median(values) == expected


def test_weighted_mean():
    assert p.weighted_mean([1, 2, 3], [3, 2, 1]) == pytest.approx(10 / 6)
    assert p.weighted_mean([1, 2, 3], [0, 0, 1]) == 3.0
    assert p.weighted_mean([10, 20], [1, 3]) == 17.5


def test_weighted_mean_errors():
    with pytest.raises(ValueError, match="weights must match values in length"):
        p.weighted_mean([1, 2], [1])
    with pytest.raises(ValueError, match="weights must not be negative"):
        p.weighted_mean([1, 2], [2, -1])
    with pytest.raises(ValueError, match="weights must not all be zero"):
        p.weighted_mean([1, 2], [0, 0])
    with pytest.raises(TypeError, match=r"weights\[0\] is not a number"):
        p.weighted_mean([1], ["1"])
    with pytest.raises(ValueError, match="^weights must not be empty$"):
        p.weighted_mean([1], [])


SKEWED = [1, 1, 1, 2, 3, 5, 8, 13, 21, 100]


@pytest.mark.parametrize("trim,expected", [
    (0, 15.5), (0.1, 6.75), (0.19, 6.75), (0.2, 32 / 6), (0.49, 4.0),
])
def test_trimmed_mean(trim, expected):
    assert p.trimmed_mean(SKEWED, trim=trim) == pytest.approx(expected)


def test_trimmed_mean_default_and_errors():
    assert p.trimmed_mean(SKEWED) == 6.75
    with pytest.raises(ValueError, match="trim must be at least 0 and below 0.5"):
        p.trimmed_mean(SKEWED, trim=0.5)
    with pytest.raises(ValueError, match="trim must be at least 0 and below 0.5"):
        p.trimmed_mean(SKEWED, trim=-0.01)


# --- aggregate --------------------------------------------------------------

def test_aggregate_modes():
    assert p.aggregate(SKEWED) == 155
    assert p.aggregate(SKEWED, mode="sum") == 155
    assert p.aggregate([], mode="sum") == 0
    assert p.aggregate(SKEWED, mode="mean") == 15.5
    assert p.aggregate(SKEWED, mode="median") == 4.0
    assert p.aggregate([1, 2, 3], mode="weighted", weights=[0, 1, 1]) == 2.5
    assert p.aggregate(SKEWED, mode="trimmed") == 6.75
    assert p.aggregate(SKEWED, mode="trimmed", trim=0.2) == pytest.approx(32 / 6)


def test_aggregate_errors():
    with pytest.raises(ValueError, match="weighted mode needs weights"):
        p.aggregate([1, 2], mode="weighted")
    with pytest.raises(ValueError, match="unknown mode: max"):
        p.aggregate([1, 2], mode="max")


# --- spread / quantiles -----------------------------------------------------

def test_variance_and_std_dev():
    assert p.variance(SPREAD) == 4.0
    assert p.variance(SPREAD, sample=True) == pytest.approx(32 / 7)
    assert p.variance([5]) == 0.0
    assert p.variance([1, 3], sample=True) == 2.0
    assert p.std_dev(SPREAD) == 2.0
    assert p.std_dev(SPREAD, sample=True) == pytest.approx(math.sqrt(32 / 7))


def test_variance_errors():
    with pytest.raises(ValueError, match="sample variance needs at least 2 values"):
        p.variance([5], sample=True)
    with pytest.raises(ValueError, match="sample variance needs at least 2 values"):
        p.std_dev([5], sample=True)
    with pytest.raises(ValueError, match="must not be empty"):
        p.variance([])


@pytest.mark.parametrize("q,expected", [
    (0, 1), (0.1, 1.4), (0.25, 2), (0.5, 3), (0.6, 3.4), (0.75, 4), (0.9, 4.6), (1, 5),
])
def test_quantile(q, expected):
    assert p.quantile([5, 3, 1, 4, 2], q) == pytest.approx(expected)


def test_quantile_edges():
    assert p.quantile([7], 0.5) == 7
    assert p.quantile([7], 1) == 7
    assert p.quantile([1, 3], 1) == 3
    assert p.quantile([2, 4, 4, 6], 0.25) == 3.5
    with pytest.raises(ValueError, match="q must be between 0 and 1"):
        p.quantile([1, 2], -0.1)
    with pytest.raises(ValueError, match="q must be between 0 and 1"):
        p.quantile([1, 2], 1.1)


# --- normalise --------------------------------------------------------------

def test_normalise_minmax():
    assert p.normalise([2, 4, 6]) == [0.0, 0.5, 1.0]
    assert p.normalise([4, 2, 6], method="minmax") == [0.5, 0.0, 1.0]
    assert p.normalise([2, 4, 6], target_min=10, target_max=20) == [10.0, 15.0, 20.0]
    assert p.normalise([2, 4, 6], target_min=-1) == [-1.0, 0.0, 1.0]
    assert p.normalise([3, 3]) == [0.0, 0.0]
    assert p.normalise([3, 3], target_min=5, target_max=6) == [5, 5]


def test_normalise_minmax_bad_target():
    with pytest.raises(ValueError, match="target_min must be below target_max"):
        p.normalise([1, 2], target_min=1.0, target_max=1.0)
    with pytest.raises(ValueError, match="target_min must be below target_max"):
        p.normalise([1, 2], target_min=2.0)


def test_normalise_zscore():
    assert p.normalise(SPREAD, method="zscore") == [-1.5, -0.5, -0.5, -0.5, 0.0, 0.0, 1.0, 2.0]
    assert p.normalise([4, 4, 4], method="zscore") == [0.0, 0.0, 0.0]


def test_normalise_total():
    assert p.normalise([1, 3], method="total") == [0.25, 0.75]
    assert p.normalise([2, -1, 1], method="total") == [1.0, -0.5, 0.5]
    with pytest.raises(ValueError, match="cannot normalise values that sum to zero"):
        p.normalise([1, -1], method="total")


def test_normalise_errors():
    with pytest.raises(ValueError, match="unknown normalisation method: log"):
        p.normalise([1, 2], method="log")
    with pytest.raises(ValueError, match="must not be empty"):
        p.normalise([])


# --- outliers ---------------------------------------------------------------

def test_outlier_bounds():
    assert p.outlier_bounds(SPREAD) == (1.0, 9.0)
    assert p.outlier_bounds(SPREAD, threshold=1) == (3.0, 7.0)
    assert p.outlier_bounds([5, 3, 1, 4, 2], method="iqr") == (-2.0, 8.0)
    assert p.outlier_bounds([5, 3, 1, 4, 2], threshold=1.5, method="iqr") == (-1.0, 7.0)


def test_outlier_bounds_errors():
    with pytest.raises(ValueError, match="threshold must be positive"):
        p.outlier_bounds([1, 2], threshold=0)
    with pytest.raises(ValueError, match="threshold must be positive"):
        p.outlier_bounds([1, 2], threshold=-1)
    assert p.outlier_bounds([1, 2], threshold=0.5) == (1.25, 1.75)
    with pytest.raises(ValueError, match="unknown outlier method: mad"):
        p.outlier_bounds([1, 2], method="mad")


BOUNDARY = [0, 2, 2, 4, 4, 6]  # q1 = 2, q3 = 4


def test_filter_outliers_zscore_boundaries():
    assert p.filter_outliers(SPREAD) == SPREAD
    assert p.filter_outliers(SPREAD, threshold=1) == [4, 4, 4, 5, 5, 7]
    assert p.filter_outliers(SPREAD, threshold=0.99) == [4, 4, 4, 5, 5]
    assert p.filter_outliers([3, 3, 3]) == [3, 3, 3]


def test_filter_outliers_default_threshold():
    # the 10 has a z-score of about 2.83: outside 2 standard deviations, inside 3
    assert p.filter_outliers([0] * 8 + [10]) == [0] * 8
    assert p.filter_outliers([0] * 8 + [10], threshold=3) == [0] * 8 + [10]


def test_filter_outliers_iqr_boundaries():
    assert p.filter_outliers(BOUNDARY, threshold=1, method="iqr") == BOUNDARY
    assert p.filter_outliers(BOUNDARY, threshold=0.99, method="iqr") == [2, 2, 4, 4]


def test_filter_outliers_keep_outliers():
    assert p.filter_outliers(SPREAD, threshold=1, keep_outliers=True) == [2, 9]
    assert p.filter_outliers(BOUNDARY, threshold=0.99, method="iqr", keep_outliers=True) == [0, 6]
    assert p.filter_outliers(SPREAD, keep_outliers=True) == []


def test_filter_outliers_errors():
    with pytest.raises(ValueError, match="threshold must be positive"):
        p.filter_outliers([1, 2], threshold=0)
    with pytest.raises(ValueError, match="must not be empty"):
        p.filter_outliers([])


# --- clip / scale -----------------------------------------------------------

def test_clip():
    assert p.clip([-5, 0, 5, 10, 15], 0, 10) == [0, 0, 5, 10, 10]
    assert p.clip([], 0, 1) == []
    assert p.clip([1, 9], 4, 4) == [4, 4]
    result = p.clip([0.0, 10.0, -1.0, 11.0], 0, 10)
    assert [type(v) for v in result] == [float, float, int, int]


def test_clip_errors():
    with pytest.raises(ValueError, match="low must not exceed high"):
        p.clip([1], 2, 1)


def test_scale():
    assert p.scale([1, 2]) == [1.0, 2.0]
    assert p.scale([1, 2], factor=2) == [2, 4]
    assert p.scale([1, 2], offset=1) == [2.0, 3.0]
    assert p.scale([1, 2], factor=-3, offset=0.5) == [-2.5, -5.5]
    assert p.scale([]) == []


# --- windows / differences / cumulative -------------------------------------

def test_moving_window():
    data = [1, 2, 3, 4, 5]
    assert p.moving_window(data) == [2.0, 3.0, 4.0]
    assert p.moving_window(data, size=2) == [1.5, 2.5, 3.5, 4.5]
    assert p.moving_window(data, step=2) == [2.0, 4.0]
    assert p.moving_window(data, size=2, step=3) == [1.5, 4.5]
    assert p.moving_window(data, mode="sum") == [6, 9, 12]
    assert p.moving_window([1, 9, 2, 8], size=3, mode="median") == [2, 8]
    assert p.moving_window(data, size=5) == [3.0]
    assert p.moving_window(data, size=1, step=5) == [1.0]
    assert p.moving_window([1, 2, 3]) == [2.0]


def test_moving_window_errors():
    with pytest.raises(ValueError, match="size must be at least 1"):
        p.moving_window([1, 2], size=0)
    with pytest.raises(ValueError, match="step must be at least 1"):
        p.moving_window([1, 2], size=1, step=0)
    with pytest.raises(ValueError, match="window size 6 exceeds 5 values"):
        p.moving_window([1, 2, 3, 4, 5], size=6)
    with pytest.raises(ValueError, match="window size 3 exceeds 2 values"):
        p.moving_window([1, 2])
    with pytest.raises(ValueError, match="weighted mode needs weights"):
        p.moving_window([1, 2, 3], mode="weighted")


def test_differences():
    assert p.differences([1, 4, 9, 16]) == [3, 5, 7]
    assert p.differences([1, 4, 9, 16], lag=2) == [8, 12]
    assert p.differences([1, 4, 9, 16], lag=3) == [15]
    assert p.differences([1, 4, 9, 16], lag=4) == []
    assert p.differences([]) == []
    with pytest.raises(ValueError, match="lag must be at least 1"):
        p.differences([1, 2], lag=0)


def test_cumulative():
    data = [3, 1, 4, 1, 5]
    assert p.cumulative(data) == [3, 4, 8, 9, 14]
    assert p.cumulative(data, mode="sum") == [3, 4, 8, 9, 14]
    assert p.cumulative(data, mode="max") == [3, 3, 4, 4, 5]
    assert p.cumulative(data, mode="min") == [3, 1, 1, 1, 1]
    assert p.cumulative([-2], mode="max") == [-2]
    assert p.cumulative([]) == []
    with pytest.raises(ValueError, match="unknown cumulative mode: mean"):
        p.cumulative(data, mode="mean")
    with pytest.raises(ValueError, match="unknown cumulative mode: mean"):
        p.cumulative([], mode="mean")


# --- buckets / histograms ---------------------------------------------------

def test_bucketize():
    assert p.bucketize([1, 9, 10, 19, 20, -1], 10) == {-10: 1, 0: 2, 10: 2, 20: 1}
    assert list(p.bucketize([20, -1, 1], 10)) == [-10, 0, 20]
    assert p.bucketize([1, 9, 10, 19, 20, -1], 10, origin=5) == {-5: 2, 5: 2, 15: 2}
    assert p.bucketize([0.5, 1.0, 1.49], 0.5) == {0.5: 1, 1.0: 2}
    assert p.bucketize([], 3) == {}


def test_bucketize_errors():
    with pytest.raises(ValueError, match="width must be positive"):
        p.bucketize([1], 0)
    with pytest.raises(ValueError, match="width must be positive"):
        p.bucketize([1], -2)


def test_histogram():
    data = [0, 1, 2, 3, 4, 5, 10]
    assert p.histogram(data) == [2, 2, 2, 0, 1]
    assert p.histogram(data, bins=5, low=0, high=10) == [2, 2, 2, 0, 1]
    assert p.histogram(data, bins=1) == [7]
    assert p.histogram(data, bins=2) == [5, 2]
    assert p.histogram(data, bins=4) == [3, 2, 1, 1]
    assert p.histogram([-1, 0, 10, 11], bins=2, low=0, high=10) == [1, 1]
    assert p.histogram([1, 2, 3], low=0) == [0, 1, 0, 1, 1]
    assert p.histogram([1, 2, 3], high=4) == [1, 1, 0, 1, 0]


def test_histogram_errors():
    with pytest.raises(ValueError, match="bins must be at least 1"):
        p.histogram([1, 2], bins=0)
    with pytest.raises(ValueError, match="histogram range is empty"):
        p.histogram([3, 3])
    with pytest.raises(ValueError, match="histogram range is empty"):
        p.histogram([1, 2], low=5, high=4)
