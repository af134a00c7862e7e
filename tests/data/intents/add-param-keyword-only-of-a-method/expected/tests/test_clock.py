import pytest

from clock import Clock, run


def test_tick():
    assert Clock().tick(2, strict=False) == 2
    with pytest.raises(ValueError):
        Clock().tick(0, strict=True)


def test_run():
    assert run(Clock(5), 3) == 8
