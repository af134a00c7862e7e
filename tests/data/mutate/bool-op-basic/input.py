def allowed(user, admin, owner, public):
    if admin and owner and user:
        return True
    return public or (user and not admin)
