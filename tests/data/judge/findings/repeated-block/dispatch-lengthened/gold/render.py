"""Evaluate a parsed template against a context with scoped, dotted lookups.

Output is HTML escaped (quotes included) unless autoescaping is off or the
value is :class:`~templater.filters.Markup`.
"""

from . import filters
from .parser import For, If, Output, Text, parse

MISSING = object()


class RenderError(Exception):
    """Raised when a template cannot be rendered with the given context."""

    def __init__(self, message, line):
        super().__init__(f"line {line}: {message}")
        self.line = line


def lookup(value, path):
    """Follow a dotted ``path`` from ``value``; return MISSING if it breaks."""
    current = value
    for segment in path.split("."):
        if isinstance(current, dict):
            if segment not in current:
                return MISSING
            current = current[segment]
        elif isinstance(current, (list, tuple)):
            if not segment.isdigit():
                return MISSING
            index = int(segment)
            if index >= len(current):
                return MISSING
            current = current[index]
        else:
            if segment.startswith("_") or not hasattr(current, segment):
                return MISSING
            current = getattr(current, segment)
    return current


class Scope:
    def __init__(self, data, parent=None):
        self.data = data
        self.parent = parent

    def resolve(self, path):
        head, _, tail = path.partition(".")
        scope = self
        while scope is not None:
            if head in scope.data:
                value = scope.data[head]
                if tail:
                    return lookup(value, tail)
                return value
            scope = scope.parent
        return MISSING


def compare(left, op, right):
    if op == "==":
        return left == right
    if op == "!=":
        return left != right
    if op == "<":
        return left < right
    if op == ">":
        return left > right
    if op == "<=":
        return left <= right
    return left >= right


class Template:
    def __init__(self, source, autoescape=True, strict=False, trim_blocks=False,
                 max_iterations=1000):
        if max_iterations < 1:
            raise ValueError("max_iterations must be at least 1")
        self.nodes = parse(source, trim_blocks=trim_blocks)
        self.autoescape = autoescape
        self.strict = strict
        self.max_iterations = max_iterations

    def render(self, context=None, **extra):
        data = {}
        if context is not None:
            data.update(context)
        data.update(extra)
        out = []
        self._render_nodes(self.nodes, Scope(data), out)
        return "".join(out)

    def _render_nodes(self, nodes, scope, out):
        for node in nodes:
            if isinstance(node, Text):
                out.append(node.value)
            elif isinstance(node, Output):
                out.append(self._output(node, scope))
            elif isinstance(node, If):
                self._render_if(node, scope, out)
            elif isinstance(node, For):
                self._render_for(node, scope, out)

    def _evaluate(self, expr, scope, line, lenient=False):
        if expr.is_literal:
            value = expr.value
        else:
            value = scope.resolve(expr.value)
        if value is MISSING:
            has_default = bool(expr.filters) and expr.filters[0][0] == "default"
            if self.strict and not lenient and not has_default:
                raise RenderError(f"undefined variable {expr.value!r}", line)
            value = None
        for name, args, kwargs in expr.filters:
            func = filters.FILTERS.get(name)
            if func is None:
                raise RenderError(f"unknown filter {name!r}", line)
            values = []
            for arg in args:
                values.append(self._evaluate(arg, scope, line))
            named = {}
            for key, arg in kwargs.items():
                named[key] = self._evaluate(arg, scope, line)
            try:
                value = func(value, *values, **named)
            except (TypeError, ValueError) as exc:
                raise RenderError(f"filter {name!r} failed: {exc}", line) from exc
        return value

    def _output(self, node, scope):
        value = self._evaluate(node.expr, scope, node.line)
        if value is None:
            return ""
        if isinstance(value, (list, tuple)):
            value = filters.join(value, sep=", ")
        if self.autoescape:
            return filters.escape(value, quote=True)
        return str(value)

    def _test(self, condition, scope, line):
        left = self._evaluate(condition.left, scope, line, lenient=True)
        if condition.op is None:
            result = bool(left)
        else:
            right = self._evaluate(condition.right, scope, line, lenient=True)
            try:
                result = compare(left, condition.op, right)
            except TypeError as exc:
                raise RenderError(f"cannot compare with {condition.op!r}", line) from exc
        if condition.negate:
            return not result
        return result

    def _render_if(self, node, scope, out):
        for condition, body in node.branches:
            if self._test(condition, scope, node.line):
                self._render_nodes(body, scope, out)
                return
        self._render_nodes(node.else_body, scope, out)

    def _loop_items(self, node, scope):
        iterable = self._evaluate(node.iterable, scope, node.line)
        if iterable is None:
            return []
        if isinstance(iterable, str):
            raise RenderError("cannot loop over a string", node.line)
        if isinstance(iterable, dict):
            if len(node.targets) == 2:
                items = sorted(iterable.items())
            else:
                items = sorted(iterable)
        else:
            try:
                items = list(iterable)
            except TypeError as exc:
                raise RenderError("value is not iterable", node.line) from exc
        if len(items) > self.max_iterations:
            raise RenderError(f"loop exceeds {self.max_iterations} iterations", node.line)
        return items

    def _render_for(self, node, scope, out):
        items = self._loop_items(node, scope)
        if not items:
            self._render_nodes(node.else_body, scope, out)
        total = len(items)
        for index, item in enumerate(items):
            data = {"loop": {
                "index": index + 1,
                "index0": index,
                "revindex": total - index,
                "first": index == 0,
                "last": index == total - 1,
                "length": total,
            }}
            if len(node.targets) == 1:
                data[node.targets[0]] = item
            else:
                if not isinstance(item, (list, tuple)) or len(item) != 2:
                    raise RenderError("cannot unpack loop item into two names", node.line)
                data[node.targets[0]] = item[0]
                data[node.targets[1]] = item[1]
            self._render_nodes(node.body, Scope(data, scope), out)


def render_string(source, context=None, **options):
    """Parse and render ``source`` in one step; options go to Template."""
    return Template(source, **options).render(context)
