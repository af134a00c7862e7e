class Clock:
    def __init__(self, now=0):
        self.now = now

    def tick(self, seconds=1, *, strict: bool):
        if strict and seconds <= 0:
            raise ValueError(seconds)
        self.now += seconds
        return self.now


def run(clock, steps):
    for _ in range(steps):
        clock.tick(strict=False)
    return clock.now
