def test_fills_dev_shm():
    # Memory a tmpfs holds is not the writer's address space: the size limit must stop it.
    with open("/dev/shm/hoard", "wb") as handle:
        for _ in range(4096):
            handle.write(b"x" * (1 << 20))
