import x

def test_x():
    pass
