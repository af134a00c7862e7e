import pytest

from stats import check, mean


def test_mean():
    assert mean([1, 2, 3]) == 2


def test_check():
    with pytest.raises(ValueError):
        check(-1)
    check(1)
