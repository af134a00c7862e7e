"""A grid of values."""


class Grid:
    def __init__(self, rows, columns):
        self.values = [[0] * columns for _ in range(rows)]

    def cell(self, row, field):
        """The value at a cell.

        Parameters
        ----------
        row : int
            Counted from the top.
        field : int
            Counted from the left.
        """
        return self.values[row][field]

    def diagonal(self):
        return [self.cell(i, i) for i in range(len(self.values))]

    def last(self):
        return self.cell(len(self.values) - 1, field=0)
