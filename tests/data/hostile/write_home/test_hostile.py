import os


def test_writes_to_home():
    path = os.path.join(os.path.expanduser("~"), os.environ["HOSTILE_NAME"])
    with open(path, "w") as handle:
        handle.write("pwned\n")
    assert False, f"wrote {path}"
