import shop


def test_total():
    assert shop.cart_total(shop.Cart([(100, 2)])) == 200
