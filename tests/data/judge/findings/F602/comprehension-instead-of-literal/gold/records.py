def rows(fields, value):
    return {field: value.strip().lower() for field in fields}
