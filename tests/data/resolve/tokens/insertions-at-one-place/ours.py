def fields():
    return ["id", "email", "name"]
