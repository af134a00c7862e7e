"""A small user directory."""


def find_user(users, name):
    """The user called ``name``, or None."""
    if not name:
        return None
    for user in users:
        if user["name"] == name:
            return user


def greeting(users, name):
    user = find_user(users, name)

    if user is None:
        return "Hello, stranger"
    return f"Hello, {user['name']}"


def is_known(users, name):
    if find_user(users, name) is not None:
        return True
    return False


def role_of(users, name, default="guest"):
    user = find_user(users, name)
    if user:
        role = user["role"]
    else:
        role = default
    return role
