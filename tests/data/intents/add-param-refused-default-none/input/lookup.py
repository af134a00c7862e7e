def lookup(table, key, default=None):
    return table.get(key, default)


def name_of(table):
    return lookup(table, "name")
