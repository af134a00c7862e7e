from lookup import find_user


def test_find_user():
    assert find_user(["Ann"], " ann ") == "Ann"
    assert find_user([], "bob") == "Bob"
