from app.posts import permalink

from .helpers import slug_of


def test_permalink():
    assert permalink(slug_of("A B")) == "/posts/a-b"
