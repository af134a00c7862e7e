from shapes.grid import Grid


def test_cell():
    grid = Grid(2, 3)
    grid.values[0][2] = 5
    assert grid.cell(0, 2) == 5
    assert grid.cell(row=0, field=2) == 5
    assert grid.diagonal() == [0, 0]
    assert grid.last() == 0
