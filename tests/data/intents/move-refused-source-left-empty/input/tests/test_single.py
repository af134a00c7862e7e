from app.single import only


def test_only():
    assert only()
