def find_user(users, name):
    wanted = name.strip().lower()
    for user in users:
        if user.lower() == wanted:
            return user
    fallback = wanted.title()
    return fallback
