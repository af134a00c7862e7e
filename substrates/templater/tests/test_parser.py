import pytest

from templater import TemplateSyntaxError, parse
from templater.parser import (
    Condition,
    For,
    If,
    Output,
    Text,
    parse_condition,
    parse_expression,
    parse_operand,
)


def expr_of(source):
    (node,) = parse(source)
    assert isinstance(node, Output)
    return node.expr


class TestOperand:
    @pytest.mark.parametrize(
        "word,value",
        [('"hi"', "hi"), ("'a b'", "a b"), ('""', ""), ("12", 12), ("-3", -3), ("0", 0),
         ("true", True), ("false", False), ("none", None)],
    )
    def test_literals(self, word, value):
        expr = parse_operand(word, 1)
        assert expr.is_literal
        assert expr.value == value
        assert expr.filters == []

    @pytest.mark.parametrize("word", ["name", "user.name", "_x", "rows.0.title", "True"])
    def test_names(self, word):
        expr = parse_operand(word, 1)
        assert not expr.is_literal
        assert expr.value == word

    @pytest.mark.parametrize("word", ["a..b", ".a", "a.", "1x", "0.name", "-x", "'"])
    def test_invalid_names(self, word):
        with pytest.raises(TemplateSyntaxError, match="line 7: invalid name"):
            parse_operand(word, 7)

    def test_invalid_name_is_truncated(self):
        with pytest.raises(TemplateSyntaxError) as info:
            parse_operand("1abc.def.ghi.jkl.mno", 2)
        assert info.value.message == "invalid name '1abc.def.ghi.j..'"

    def test_short_invalid_name_kept(self):
        with pytest.raises(TemplateSyntaxError) as info:
            parse_operand("a..b", 2)
        assert info.value.message == "invalid name 'a..b'"
        with pytest.raises(TemplateSyntaxError) as info:
            parse_operand("0.name", 2)
        assert info.value.message == "invalid name '0.name'"


class TestExpression:
    def test_plain(self):
        expr = expr_of("{{ user.name }}")
        assert expr.value == "user.name"
        assert expr.filters == []

    def test_filter_chain(self):
        expr = expr_of("{{ name|lower|upper }}")
        assert expr.filters == [("lower", [], {}), ("upper", [], {})]

    def test_filter_arguments(self):
        expr = expr_of('{{ x|truncate(5, ellipsis="~")|pad(8) }}')
        (name, args, kwargs), second = expr.filters
        assert name == "truncate"
        assert [a.value for a in args] == [5]
        assert list(kwargs) == ["ellipsis"]
        assert kwargs["ellipsis"].value == "~"
        assert kwargs["ellipsis"].is_literal
        assert second[0] == "pad"
        assert [a.value for a in second[1]] == [8]

    def test_empty_parentheses(self):
        assert expr_of("{{ x|upper() }}").filters == [("upper", [], {})]

    def test_argument_lookup(self):
        expr = expr_of("{{ x|join(cfg.sep) }}")
        arg = expr.filters[0][1][0]
        assert arg.value == "cfg.sep"
        assert not arg.is_literal

    def test_multiple_keywords(self):
        expr = expr_of('{{ x|pad(width=3, fill="0") }}')
        kwargs = expr.filters[0][2]
        assert kwargs["width"].value == 3
        assert kwargs["fill"].value == "0"

    @pytest.mark.parametrize(
        "source,message",
        [
            ("{{ a b }}", "unexpected 'b' in expression"),
            ("{{ a | }}", "missing filter name after '|'"),
            ("{{ a | 9 }}", "invalid filter name '9'"),
            ("{{ a|f(1,) }}", "trailing comma in filter arguments"),
            ("{{ a|f(,1) }}", "unexpected ',' in filter arguments"),
            ("{{ a|f(1 2) }}", "missing ',' between filter arguments"),
            ("{{ a|f(x=1, 2) }}", "positional argument after keyword argument"),
            ("{{ a|f(1, 'k'=2) }}", "invalid keyword \"'k'\""),
            ("{{ a|f(1 }}", "unclosed filter arguments"),
            ("{{ a|f(x=1 }}", "unclosed filter arguments"),
            ("{{ a|f(x= }}", "missing ',' between filter arguments"),
        ],
    )
    def test_errors(self, source, message):
        with pytest.raises(TemplateSyntaxError) as info:
            parse("\n" + source)
        assert info.value.message == message
        assert info.value.line == 2

    def test_missing_expression(self):
        with pytest.raises(TemplateSyntaxError, match="line 3: missing expression"):
            parse_expression([], 3)

    def test_keyword_at_end(self):
        expr = parse_expression(["a", "|", "f", "(", "k", "=", "1", ")"], 1)
        assert expr.filters[0][2]["k"].value == 1


class TestCondition:
    def test_simple(self):
        cond = parse_condition(["x"], 1)
        assert cond.left.value == "x"
        assert cond.op is None
        assert cond.right is None
        assert cond.negate is False

    def test_condition_defaults(self):
        cond = Condition(parse_operand("x", 1))
        assert cond.op is None
        assert cond.right is None
        assert cond.negate is False

    def test_not(self):
        cond = parse_condition(["not", "x", "|", "length"], 1)
        assert cond.negate is True
        assert cond.left.filters == [("length", [], {})]

    def test_comparison(self):
        cond = parse_condition(["not", "a", ">=", "3"], 1)
        assert cond.negate is True
        assert cond.left.value == "a"
        assert cond.op == ">="
        assert cond.right.value == 3

    def test_missing_side(self):
        with pytest.raises(TemplateSyntaxError, match="missing expression"):
            parse_condition(["a", "=="], 1)
        with pytest.raises(TemplateSyntaxError, match="missing expression"):
            parse_condition(["==", "a"], 1)


class TestBlocks:
    def test_text_and_output(self):
        nodes = parse("a{{ b }}c")
        assert [type(n) for n in nodes] == [Text, Output, Text]
        assert nodes[0].value == "a"
        assert nodes[1].line == 1
        assert nodes[2].value == "c"

    def test_if_elif_else(self):
        (node,) = parse("{% if a %}1{% elif b %}2{% elif c %}3{% else %}4{% endif %}")
        assert isinstance(node, If)
        assert [cond.left.value for cond, _ in node.branches] == ["a", "b", "c"]
        assert [body[0].value for _, body in node.branches] == ["1", "2", "3"]
        assert node.else_body[0].value == "4"

    def test_if_without_else(self):
        (node,) = parse("\n{% if a %}x{% endif %}")[1:]
        assert node.else_body == []
        assert node.line == 2

    def test_nested(self):
        (node,) = parse("{% for x in xs %}{% if x %}{{ x }}{% endif %}{% endfor %}")
        assert isinstance(node, For)
        inner = node.body[0]
        assert isinstance(inner, If)
        assert isinstance(inner.branches[0][1][0], Output)

    def test_for(self):
        (node,) = parse("{% for item in items|default(x) %}a{% else %}b{% endfor %}")
        assert node.targets == ["item"]
        assert node.iterable.value == "items"
        assert node.iterable.filters[0][0] == "default"
        assert node.body[0].value == "a"
        assert node.else_body[0].value == "b"

    def test_for_two_targets(self):
        (node,) = parse("{% for k, v in pairs %}{% endfor %}")
        assert node.targets == ["k", "v"]
        assert node.body == []
        assert node.else_body == []

    @pytest.mark.parametrize(
        "source,line,message",
        [
            ("{% if a %}x", 1, "'if' block opened here is never closed"),
            ("\n{% if a %}{% else %}", 2, "'if' block opened here is never closed"),
            ("{% for x in y %}\n\n", 1, "'for' block opened here is never closed"),
            ("{% for x in y %}{% else %}", 1, "'for' block opened here is never closed"),
            ("a\n{% endif %}", 2, "unexpected tag 'endif'"),
            ("{% for x in y %}{% endif %}{% endfor %}", 1, "unexpected tag 'endif'"),
            ("{% include x %}", 1, "unexpected tag 'include'"),
            ("{% if a %}\n{% endif a %}", 2, "'endif' takes no arguments"),
            ("{% if a %}{% else x %}{% endif %}", 1, "'else' takes no arguments"),
            ("{% for x in y %}\n{% endfor y %}", 2, "'endfor' takes no arguments"),
            ("{% if a %}{% else %}\n{% elif b %}{% endif %}", 2, "unexpected 'elif' after 'else'"),
            ("{% if a %}{% else %}{% else %}{% endif %}", 1, "unexpected 'else' after 'else'"),
            ("{% for x in y %}{% else %}\n{% else %}{% endfor %}", 2,
             "unexpected 'else' after 'else'"),
            ("{% for x y %}{% endfor %}", 1, "for loop needs 'in'"),
            ("{% for in y %}{% endfor %}", 1, "for loop takes one or two names"),
            ("{% for a b in y %}{% endfor %}", 1, "for loop takes one or two names"),
            ("{% for a, b, c in y %}{% endfor %}", 1, "for loop takes one or two names"),
            ("{% for 1 in y %}{% endfor %}", 1, "invalid loop variable '1'"),
            ("{% for a, 2 in y %}{% endfor %}", 1, "invalid loop variable '2'"),
            ("{% for x in %}{% endfor %}", 1, "missing expression"),
            ("{% if %}{% endif %}", 1, "missing expression"),
            ("{% if a %}\n\n{% elif %}{% endif %}", 3, "missing expression"),
        ],
    )
    def test_errors(self, source, line, message):
        with pytest.raises(TemplateSyntaxError) as info:
            parse(source)
        assert info.value.message == message
        assert info.value.line == line

    def test_trim_blocks_passed_to_lexer(self):
        nodes = parse("{% if a %}\nx{% endif %}\n", trim_blocks=True)
        assert len(nodes) == 1
        assert nodes[0].branches[0][1][0].value == "x"
        assert len(parse("{% if a %}\nx{% endif %}\n")) == 2
