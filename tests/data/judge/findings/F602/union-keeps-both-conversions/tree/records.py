def row(field, value):
    return {
        field: value.strip(),
        field: value.lower(),
    }
