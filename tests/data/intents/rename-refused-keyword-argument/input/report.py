def format_row(cells):
    return " | ".join(cells)


def table(rows, format_row=format_row):
    return "\n".join(format_row(r) for r in rows)
