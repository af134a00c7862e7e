def find_user(users, name):
    for user in users:
        if user["name"] == name:
            return user
    return None


def greeting(users, name):
    user = find_user(users, name)
    if user is None:
        return "Hello, stranger"
    return f"Hello, {user['name']}"


def find_admin(users):
    return find_user(users, "admin")
