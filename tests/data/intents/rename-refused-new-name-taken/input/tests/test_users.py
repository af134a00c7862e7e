from users import fetch_user, get_user


def test_users():
    assert get_user(1) == fetch_user(1)
