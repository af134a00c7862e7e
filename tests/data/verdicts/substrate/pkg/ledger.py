"""A ledger whose accounts one test opens for the tests after it in the same file."""

ACCOUNTS = {}


def open_account(name):
    ACCOUNTS[name] = 0


def post(name, amount):
    ACCOUNTS[name] += amount
    return ACCOUNTS[name]
