"""Render nested lists as indented text."""


class Renderer:
    def __init__(self, bullet="-"):
        self.bullet = bullet

    def render(self, items, *, indent=2, width=40):
        """The items, one a line, nested ones indented by ``indent``."""
        lines = []
        for item in items:
            if isinstance(item, list):
                nested = self.render(item, indent=indent, width=width - indent)
                lines.extend(" " * indent + line for line in nested)
            else:
                lines.append(f"{self.bullet} {item}"[:width])
        return lines


def outline(items):
    return "\n".join(Renderer().render(items, indent=4))
