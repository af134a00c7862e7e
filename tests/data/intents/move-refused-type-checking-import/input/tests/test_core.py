from app.core import key


def test_key():
    assert key("abcdefghij") == "abcdefgh"
