import pytest

from textops import run, shout, whisper


def test_shout():
    assert shout("hi") == "HI"


def test_whisper():
    assert whisper("HI") == "hi"


@pytest.mark.parametrize("text", ["ab", "Ab"])
def test_run_upper(text):
    assert run("upper", text) == "AB"


def test_run_lower():
    assert run("lower", "AB") == "ab"
