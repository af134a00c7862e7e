from textops import run, whisper


def test_whisper():
    assert whisper("HI") == "hi"


def test_run_lower():
    assert run("lower", "AB") == "ab"
