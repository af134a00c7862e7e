import unittest

import pytest

from users import find_user, greeting, is_known, role_of

USERS = [{"name": "ada", "role": "admin"}]


def test_find_user():
    assert find_user(USERS, "ada")["role"] == "admin"
    assert find_user(USERS, "ada") is not None


def test_find_user_misses():
    assert find_user(USERS, "bob") is None
    assert not find_user(USERS, "")


def test_callers():
    assert greeting(USERS, "ada") == "Hello, ada"
    assert greeting(USERS, "bob") == "Hello, stranger"
    assert is_known(USERS, "ada") and not is_known(USERS, "bob")
    assert role_of(USERS, "ada") == "admin"
    assert role_of(USERS, "bob") == "guest"


class FindUserTest(unittest.TestCase):
    def test_miss(self):
        self.assertIsNone(find_user([], "ada"))
