"""Build a node tree from tokens: text, output, if/elif/else and for/else blocks.

Expressions are a literal or dotted name followed by ``|filter`` or
``|filter(arg, key=arg)`` calls; conditions may start with ``not`` and
compare two expressions with ``== != < > <= >=``.
"""

from . import filters
from .lexer import BLOCK, COMPARISONS, TEXT, VAR, TemplateSyntaxError, split_expression, tokenize

KEYWORD_LITERALS = {"true": True, "false": False, "none": None}


class Text:
    def __init__(self, value):
        self.value = value


class Output:
    def __init__(self, expr, line):
        self.expr = expr
        self.line = line


class If:
    def __init__(self, branches, else_body, line):
        self.branches = branches
        self.else_body = else_body
        self.line = line


class For:
    def __init__(self, targets, iterable, body, else_body, line):
        self.targets = targets
        self.iterable = iterable
        self.body = body
        self.else_body = else_body
        self.line = line


class Expression:
    """A literal value or a dotted lookup, plus a chain of filters."""

    def __init__(self, value, is_literal, filter_calls=None):
        self.value = value
        self.is_literal = is_literal
        self.filters = filter_calls or []


class Condition:
    def __init__(self, left, op=None, right=None, negate=False):
        self.left = left
        self.op = op
        self.right = right
        self.negate = negate


def parse_operand(word, line):
    """Turn one word into a literal or lookup :class:`Expression`."""
    if len(word) >= 2 and word[0] in "\"'" and word[-1] == word[0]:
        return Expression(word[1:-1], True)
    if word in KEYWORD_LITERALS:
        return Expression(KEYWORD_LITERALS[word], True)
    digits = word
    if digits.startswith("-"):
        digits = digits[1:]
    if digits.isdigit():
        return Expression(int(word), True)
    for segment in word.split("."):
        if not segment or not (segment.isidentifier() or segment.isdigit()):
            shown = filters.truncate(word, width=16, ellipsis="..")
            raise TemplateSyntaxError(f"invalid name {shown!r}", line)
    if not word[0].isalpha() and word[0] != "_":
        raise TemplateSyntaxError(f"invalid name {word!r}", line)
    return Expression(word, False)


def _parse_arguments(parts, index, line):
    """Parse ``( arg, key=arg )`` starting at the opening parenthesis."""
    args = []
    kwargs = {}
    index += 1
    expecting = True
    while index < len(parts):
        part = parts[index]
        if part == ")":
            if expecting and (args or kwargs):
                raise TemplateSyntaxError("trailing comma in filter arguments", line)
            return args, kwargs, index + 1
        if part == ",":
            if expecting:
                raise TemplateSyntaxError("unexpected ',' in filter arguments", line)
            expecting = True
        elif not expecting:
            raise TemplateSyntaxError("missing ',' between filter arguments", line)
        elif index + 2 < len(parts) and parts[index + 1] == "=":
            if not part.isidentifier():
                raise TemplateSyntaxError(f"invalid keyword {part!r}", line)
            kwargs[part] = parse_operand(parts[index + 2], line)
            index += 2
            expecting = False
        else:
            if kwargs:
                raise TemplateSyntaxError("positional argument after keyword argument", line)
            args.append(parse_operand(part, line))
            expecting = False
        index += 1
    raise TemplateSyntaxError("unclosed filter arguments", line)


def parse_expression(parts, line):
    """Parse a list of expression words into an :class:`Expression`."""
    if not parts:
        raise TemplateSyntaxError("missing expression", line)
    expr = parse_operand(parts[0], line)
    index = 1
    while index < len(parts):
        if parts[index] != "|":
            raise TemplateSyntaxError(f"unexpected {parts[index]!r} in expression", line)
        if index + 1 >= len(parts):
            raise TemplateSyntaxError("missing filter name after '|'", line)
        name = parts[index + 1]
        if not name.isidentifier():
            raise TemplateSyntaxError(f"invalid filter name {name!r}", line)
        index += 2
        args = []
        kwargs = {}
        if index < len(parts) and parts[index] == "(":
            args, kwargs, index = _parse_arguments(parts, index, line)
        expr.filters.append((name, args, kwargs))
    return expr


def parse_condition(parts, line):
    negate = False
    if parts and parts[0] == "not":
        negate = True
        parts = parts[1:]
    for position, part in enumerate(parts):
        if part in COMPARISONS:
            left = parse_expression(parts[:position], line)
            right = parse_expression(parts[position + 1:], line)
            return Condition(left, part, right, negate)
    return Condition(parse_expression(parts, line), negate=negate)


def _split_tag(value):
    tag, _, rest = value.partition(" ")
    return tag, rest.strip()


class Parser:
    def __init__(self, tokens):
        self.tokens = tokens
        self.pos = 0

    def parse(self):
        nodes, _ = self._parse_body(())
        return nodes

    def _parse_body(self, stop_tags):
        """Parse nodes until a block tag in ``stop_tags`` (left unconsumed)."""
        nodes = []
        while self.pos < len(self.tokens):
            token = self.tokens[self.pos]
            if token.kind == TEXT:
                nodes.append(Text(token.value))
            elif token.kind == VAR:
                parts = split_expression(token.value, token.line)
                nodes.append(Output(parse_expression(parts, token.line), token.line))
            elif token.kind == BLOCK:
                tag, rest = _split_tag(token.value)
                if tag in stop_tags:
                    return nodes, token
                self.pos += 1
                if tag == "if":
                    nodes.append(self._parse_if(rest, token.line))
                elif tag == "for":
                    nodes.append(self._parse_for(rest, token.line))
                else:
                    raise TemplateSyntaxError(f"unexpected tag {tag!r}", token.line)
                continue
            self.pos += 1
        return nodes, None

    def _close(self, end, name, line):
        """Consume the stop tag ``end`` and return its name and arguments."""
        if end is None:
            raise TemplateSyntaxError(f"'{name}' block opened here is never closed", line)
        self.pos += 1
        tag, rest = _split_tag(end.value)
        if rest and tag in ("else", "endif", "endfor"):
            raise TemplateSyntaxError(f"'{tag}' takes no arguments", end.line)
        return tag, rest

    def _parse_if(self, rest, line):
        branches = []
        condition = parse_condition(split_expression(rest, line), line)
        while True:
            body, end = self._parse_body(("elif", "else", "endif"))
            tag, rest = self._close(end, "if", line)
            branches.append((condition, body))
            if tag == "elif":
                condition = parse_condition(split_expression(rest, end.line), end.line)
                continue
            if tag == "endif":
                return If(branches, [], line)
            else_body, end = self._parse_body(("elif", "else", "endif"))
            tag, rest = self._close(end, "if", line)
            if tag != "endif":
                raise TemplateSyntaxError(f"unexpected '{tag}' after 'else'", end.line)
            return If(branches, else_body, line)

    def _parse_for(self, rest, line):
        parts = split_expression(rest, line)
        if "in" not in parts:
            raise TemplateSyntaxError("for loop needs 'in'", line)
        split = parts.index("in")
        names = parts[:split]
        targets = []
        if len(names) == 1:
            targets.append(names[0])
        elif len(names) == 3 and names[1] == ",":
            targets.append(names[0])
            targets.append(names[2])
        else:
            raise TemplateSyntaxError("for loop takes one or two names", line)
        for target in targets:
            if not target.isidentifier():
                raise TemplateSyntaxError(f"invalid loop variable {target!r}", line)
        iterable = parse_expression(parts[split + 1:], line)
        body, end = self._parse_body(("else", "endfor"))
        tag, _ = self._close(end, "for", line)
        else_body = []
        if tag == "else":
            else_body, end = self._parse_body(("else", "endfor"))
            tag, _ = self._close(end, "for", line)
            if tag != "endfor":
                raise TemplateSyntaxError("unexpected 'else' after 'else'", end.line)
        return For(targets, iterable, body, else_body, line)


def parse(source, trim_blocks=False):
    """Tokenize and parse ``source`` into a list of nodes."""
    return Parser(tokenize(source, trim_blocks=trim_blocks)).parse()
