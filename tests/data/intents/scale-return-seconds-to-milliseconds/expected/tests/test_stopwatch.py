from stopwatch import elapsed, report


def test_elapsed_between_two_readings():
    assert elapsed(10, now=12.5) == 2500


def test_elapsed_in_milliseconds():
    assert elapsed(0, 0.25) == 250


def test_report():
    assert report("build", 0, 3) == "build took 3.0s"
