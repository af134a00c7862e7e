import os


def test_forks_without_end():
    children = 0
    for _ in range(100000):
        try:
            pid = os.fork()
        except OSError:
            break
        if pid == 0:
            while True:
                try:
                    os.fork()
                except OSError:
                    pass
        children += 1
    assert False, f"fork refused after {children} children"
