from pkg.extra import greet


def test_greet():
    assert greet("you") == "hello you"
