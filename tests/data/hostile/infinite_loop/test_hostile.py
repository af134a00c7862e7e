def test_spins_forever():
    while True:
        pass
