from shop.price import Cart


def test_add():
    assert Cart().add(3).items == [3]


def test_total():
    assert Cart().add(100).add(50).total() == 180
