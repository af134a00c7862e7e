from walk import tree_sizes


def test_sizes():
    assert tree_sizes([{"children": [{}]}, {}]) == [2, 1]
