def row(field, value):
    return {field: value.strip().lower()}
