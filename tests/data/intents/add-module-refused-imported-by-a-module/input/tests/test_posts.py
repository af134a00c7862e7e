from app.posts import permalink


def test_permalink():
    assert permalink("A B") == "/posts/a-b"
