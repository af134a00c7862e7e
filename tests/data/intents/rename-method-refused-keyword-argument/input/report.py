class Report:
    def __init__(self, rows):
        self.rows = rows

    def render_line(self, row):
        return " | ".join(str(cell) for cell in row)

    def render(self, printer):
        return "\n".join(printer.render_line(row) for row in self.rows)
