import os


def test_writes_a_file_of_the_hosts_dev_shm():
    with open(os.environ["HOSTILE_SHM"], "r+") as handle:
        handle.write("pwned\n")
