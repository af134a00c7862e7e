import retry as module


def retry(func, delay=0):
    return func()


def test_retry():
    assert module.retry(lambda: 1, delay=0) == 1
