import time


class Poller:
    """Reads a source every `interval` milliseconds until it has a value."""

    def __init__(self, source, interval=250):
        self.source = source
        self.interval = interval

    def wait(self, polls):
        for _ in range(polls):
            value = self.source()
            if value is not None:
                return value
            time.sleep(self.interval / 1000)
        return None


def first_value(source, polls=3):
    return Poller(source, interval=1).wait(polls)
