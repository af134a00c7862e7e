def test_allocates_until_refused():
    hoard = []
    while True:
        hoard.append(bytearray(256 * 1024 * 1024))
