from flatten import flatten


def test_nested():
    assert flatten([1, [2, (3,)]], set()) == [1, 2, 3]
