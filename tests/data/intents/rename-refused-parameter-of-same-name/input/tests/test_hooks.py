from hooks import extract, get_value


def test_extract():
    assert extract([{"value": 1}], get_value) == [1]
