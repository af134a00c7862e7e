import limits
from limits import core


def test_default_burst():
    assert limits.DEFAULT_BURST == 5
    assert limits.allowed(4)


def test_patched_burst(monkeypatch):
    monkeypatch.setattr(core, "DEFAULT_BURST", 1)
    assert not core.allowed(1)
