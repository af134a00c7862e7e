from docs.render import Renderer, outline


def test_render():
    assert Renderer().render(["a", ["b"]]) == ["- a", "  - b"]
    assert Renderer("*").render(["abc"], 2, 3) == ["* a"]
    assert Renderer().render([["x"]], width=10, indent=1) == [" - x"]


def test_outline():
    assert outline(["a", ["b"]]) == "- a\n    - b"
