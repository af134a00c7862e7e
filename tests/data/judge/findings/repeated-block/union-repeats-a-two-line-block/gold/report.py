def summary(rows, out):
    total = sum(row.amount for row in rows) * 100
    out.write(f"total in cents: {total}")
    return total
