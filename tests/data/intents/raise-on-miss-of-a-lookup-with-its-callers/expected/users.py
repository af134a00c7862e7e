"""A small user directory."""


def find_user(users, name):
    """The user called ``name``, or None."""
    if not name:
        raise LookupError(name)
    for user in users:
        if user["name"] == name:
            return user
    raise LookupError(name)


def greeting(users, name):
    try:
        user = find_user(users, name)
    except LookupError:
        return "Hello, stranger"
    return f"Hello, {user['name']}"


def is_known(users, name):
    try:
        find_user(users, name)
    except LookupError:
        pass
    else:
        return True
    return False


def role_of(users, name, default="guest"):
    try:
        user = find_user(users, name)
    except LookupError:
        role = default
    else:
        role = user["role"]
    return role
