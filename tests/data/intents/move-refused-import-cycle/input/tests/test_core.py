from app.core import key, normalize


def test_key():
    assert key("A B") == normalize("a b")
