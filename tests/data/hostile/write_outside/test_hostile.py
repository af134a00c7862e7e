import os


def test_writes_outside_the_sandbox():
    with open(os.environ["HOSTILE_OUTSIDE"], "w") as handle:
        handle.write("pwned\n")
