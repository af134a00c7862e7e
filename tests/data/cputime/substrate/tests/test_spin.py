from pkg.spin import spin


def test_spin():
    assert spin() >= 0
