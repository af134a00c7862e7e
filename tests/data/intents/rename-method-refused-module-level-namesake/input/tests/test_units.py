from units import Length


def test_total():
    assert Length(1).compute_total(Length(2), Length(3)) == 6
