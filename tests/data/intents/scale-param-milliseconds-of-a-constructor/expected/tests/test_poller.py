from poller import Poller, first_value


def test_a_ready_source_is_read_at_once():
    assert Poller(lambda: 3, 0.005).wait(1) == 3


def test_the_interval_is_kept():
    assert Poller(lambda: None, interval=1.5).interval == 1500


def test_first_value_gives_up():
    assert first_value(lambda: None, polls=2) is None
