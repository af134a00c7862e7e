def summary(rows, out):
    total = sum(row.amount for row in rows) * 100
    out.write(f"total in cents: {total}")
    total = sum(row.amount for row in rows) / 100
    out.write(f"total in hundreds: {total}")
    return total
