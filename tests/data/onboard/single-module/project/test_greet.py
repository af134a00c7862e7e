import six
from greet import greet


def test_greet():
    assert greet(six.text_type("a")) == "hi a"
