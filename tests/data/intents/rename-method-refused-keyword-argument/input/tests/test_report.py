import types

from report import Report


def test_render_with_a_stub_printer():
    printer = types.SimpleNamespace(render_line=lambda row: "*")
    assert Report([[1], [2]]).render(printer) == "*\n*"
