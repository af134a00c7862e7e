"""A grid of values."""


class Grid:
    def __init__(self, rows, columns):
        self.values = [[0] * columns for _ in range(rows)]

    def cell(self, field, row):
        """The value at a cell.

        Parameters
        ----------
        field : int
            Counted from the left.
        row : int
            Counted from the top.
        """
        return self.values[row][field]

    def diagonal(self):
        return [self.cell(i, i) for i in range(len(self.values))]

    def last(self):
        return self.cell(row=len(self.values) - 1, field=0)
