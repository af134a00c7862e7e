def fields():
    return ["id", "name"]
