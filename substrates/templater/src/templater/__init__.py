"""A small template renderer: {{ variables|filters }}, {% if %} and {% for %}."""

from .filters import FILTERS, Markup
from .lexer import TemplateSyntaxError, tokenize
from .parser import parse
from .render import RenderError, Template, render_string

__all__ = [
    "FILTERS",
    "Markup",
    "RenderError",
    "Template",
    "TemplateSyntaxError",
    "parse",
    "render_string",
    "tokenize",
]
