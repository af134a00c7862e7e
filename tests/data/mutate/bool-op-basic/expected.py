def allowed(user, admin, owner, public):
    if admin and owner and user:
        return True
    return public and (user and not admin)
