from app.core import normalize


def test_normalize():
    assert normalize(" A B ") == "a-b"
