import shop


def test_total():
    assert shop.cart_total(shop.Cart([(100, 2)])) == 200


def test_merge():
    merged = shop.merge_carts(shop.Cart([(1, 1)]), shop.Cart([(2, 1)]))
    assert merged.lines == [(1, 1), (2, 1)]
