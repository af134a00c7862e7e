from stats import weighted


def test_weighted():
    assert weighted([1, 3], [1, 1]) == 2.0
