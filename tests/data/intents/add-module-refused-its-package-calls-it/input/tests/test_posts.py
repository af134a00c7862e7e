from app.posts import permalink


def test_permalink():
    assert permalink("a-b") == "/posts/a-b"
