from doctest import DocTestSuite

import iters as mi


def load_tests(loader, tests, ignore):
    tests.addTests(DocTestSuite('iters.more'))
    return tests


def test_chunked():
    assert list(mi.chunked([1, 2, 3], 2)) == [[1, 2], [3]]
