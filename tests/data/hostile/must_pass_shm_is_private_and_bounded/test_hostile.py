import errno
import os

import pytest


def test_the_hosts_files_are_not_there():
    assert os.path.isdir("/dev/shm")
    assert not os.path.exists(os.environ["HOSTILE_SHM"])


def test_filling_it_stops_at_its_size():
    written = 0
    with pytest.raises(OSError) as error:
        with open("/dev/shm/hoard", "wb") as handle:
            for _ in range(128):
                handle.write(b"x" * (1 << 20))
                handle.flush()
                written += 1 << 20
    assert error.value.errno == errno.ENOSPC
    assert 60 << 20 <= written <= 64 << 20
    os.remove("/dev/shm/hoard")
