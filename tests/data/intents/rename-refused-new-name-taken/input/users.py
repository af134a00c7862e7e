USERS = {1: "ada"}


def get_user(uid):
    return USERS[uid]


def fetch_user(uid):
    return USERS.get(uid)
