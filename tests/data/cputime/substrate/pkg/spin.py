"""Work measured in CPU time: each case makes `spin` busy for a number of CPU seconds."""

import time


def spin():
    """Returns the CPU time this process has used so far."""
    return time.process_time()
