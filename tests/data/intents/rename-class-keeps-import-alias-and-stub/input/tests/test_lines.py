import parsing.lines as lines_mod
from parsing.lines import ItemParser as Parser


def test_pairs():
    assert Parser().pairs("a=1 b=2") == {"a": "1", "b": "2"}


def test_module_attribute():
    assert isinstance(lines_mod.ItemParser(), Parser)
