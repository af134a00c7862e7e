from animals import Dog, Puppy


def test_dog():
    assert Dog().sound() == "woof"


def test_puppy():
    assert Puppy().sound() == "yip"


def test_legs():
    assert Dog().legs() == 4
