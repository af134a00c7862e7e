from cart import Cart


def test_total():
    cart = Cart()
    cart.items["a"] = 2
    assert cart.total({"a": 3}) == 6
