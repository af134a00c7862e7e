def fields():
    return ["id", "phone", "name"]
