"""Split template source into ``{{ var }}``, ``{% block %}`` and text tokens.

``{# comments #}`` are dropped.  Every token remembers its starting line.
"""

VAR_OPEN = "{{"
VAR_CLOSE = "}}"
BLOCK_OPEN = "{%"
BLOCK_CLOSE = "%}"
COMMENT_OPEN = "{#"
COMMENT_CLOSE = "#}"

CLOSERS = {VAR_OPEN: VAR_CLOSE, BLOCK_OPEN: BLOCK_CLOSE, COMMENT_OPEN: COMMENT_CLOSE}

TEXT = "text"
VAR = "var"
BLOCK = "block"

COMPARISONS = ("==", "!=", "<=", ">=", "<", ">")
PUNCTUATION = "|(),="


class TemplateSyntaxError(Exception):
    """A template could not be tokenized or parsed."""

    def __init__(self, message, line):
        super().__init__(f"line {line}: {message}")
        self.message = message
        self.line = line


class Token:
    def __init__(self, kind, value, line):
        self.kind = kind
        self.value = value
        self.line = line

    def __eq__(self, other):
        if not isinstance(other, Token):
            return NotImplemented
        return (self.kind, self.value, self.line) == (other.kind, other.value, other.line)

    def __repr__(self):
        return f"Token({self.kind!r}, {self.value!r}, {self.line})"


def _next_open(source, pos):
    """Return ``(index, opener)`` of the first tag opener at or after ``pos``."""
    best = -1
    opener = None
    for candidate in (VAR_OPEN, BLOCK_OPEN, COMMENT_OPEN):
        index = source.find(candidate, pos)
        if index != -1 and (best == -1 or index < best):
            best = index
            opener = candidate
    return best, opener


def tokenize(source, trim_blocks=False):
    """Return the tokens of ``source``; ``trim_blocks`` drops a newline after tags."""
    tokens = []
    pos = 0
    line = 1
    length = len(source)
    while pos < length:
        start, opener = _next_open(source, pos)
        if start == -1:
            tokens.append(Token(TEXT, source[pos:], line))
            break
        if start > pos:
            text = source[pos:start]
            tokens.append(Token(TEXT, text, line))
            line += text.count("\n")
        end = source.find(CLOSERS[opener], start + 2)
        if end == -1:
            raise TemplateSyntaxError(f"unclosed {opener!r}", line)
        inner = source[start + 2:end]
        body = inner.strip()
        if opener == VAR_OPEN:
            if not body:
                raise TemplateSyntaxError("empty variable tag", line)
            tokens.append(Token(VAR, body, line))
        elif opener == BLOCK_OPEN:
            if not body:
                raise TemplateSyntaxError("empty block tag", line)
            tokens.append(Token(BLOCK, body, line))
        line += inner.count("\n")
        pos = end + 2
        if trim_blocks and opener != VAR_OPEN and source[pos:pos + 1] == "\n":
            pos += 1
            line += 1
    return tokens


def split_expression(text, line=1):
    """Split an expression into words, quoted strings and operators."""
    parts = []
    index = 0
    length = len(text)
    while index < length:
        ch = text[index]
        if ch.isspace():
            index += 1
            continue
        if ch == '"' or ch == "'":
            end = text.find(ch, index + 1)
            if end == -1:
                raise TemplateSyntaxError("unterminated string", line)
            parts.append(text[index:end + 1])
            index = end + 1
            continue
        pair = text[index:index + 2]
        if pair in COMPARISONS:
            parts.append(pair)
            index += 2
            continue
        if ch in COMPARISONS or ch in PUNCTUATION:
            parts.append(ch)
            index += 1
            continue
        start = index
        if ch == "-":
            index += 1
        while index < length and (text[index].isalnum() or text[index] in "_."):
            index += 1
        if index == start or text[start:index] == "-":
            raise TemplateSyntaxError(f"unexpected character {ch!r}", line)
        parts.append(text[start:index])
    return parts
