import pytest

from templater import TemplateSyntaxError, tokenize
from templater.lexer import BLOCK, TEXT, VAR, Token, split_expression


class TestTokenize:
    def test_empty(self):
        assert tokenize("") == []

    def test_plain_text(self):
        assert tokenize("hello\nworld") == [Token(TEXT, "hello\nworld", 1)]

    def test_variable_and_text(self):
        assert tokenize("Hi {{ name }}!") == [
            Token(TEXT, "Hi ", 1),
            Token(VAR, "name", 1),
            Token(TEXT, "!", 1),
        ]

    def test_adjacent_tags_have_no_empty_text(self):
        assert tokenize("{{a}}{% if b %}{{c}}") == [
            Token(VAR, "a", 1),
            Token(BLOCK, "if b", 1),
            Token(VAR, "c", 1),
        ]

    def test_line_numbers(self):
        source = "a\nb {{ x }}\n{% if y %}\n\n{{ z }}"
        assert tokenize(source) == [
            Token(TEXT, "a\nb ", 1),
            Token(VAR, "x", 2),
            Token(TEXT, "\n", 2),
            Token(BLOCK, "if y", 3),
            Token(TEXT, "\n\n", 3),
            Token(VAR, "z", 5),
        ]

    def test_newlines_inside_tags_count(self):
        tokens = tokenize("{{\nx\n}}{{ y }}")
        assert tokens == [Token(VAR, "x", 1), Token(VAR, "y", 3)]

    def test_comments_dropped(self):
        assert tokenize("a{# note\nmore #}b") == [Token(TEXT, "a", 1), Token(TEXT, "b", 2)]

    def test_earliest_opener_wins(self):
        assert tokenize("{% if a %}{{ b }}{# c #}") == [
            Token(BLOCK, "if a", 1),
            Token(VAR, "b", 1),
        ]
        assert tokenize("{# {{ x }} #}{{ y }}") == [Token(VAR, "y", 1)]

    def test_trim_blocks(self):
        source = "{% if a %}\nx\n{# c #}\n{{ v }}\ny"
        assert tokenize(source, trim_blocks=True) == [
            Token(BLOCK, "if a", 1),
            Token(TEXT, "x\n", 2),
            Token(VAR, "v", 4),
            Token(TEXT, "\ny", 4),
        ]

    def test_trim_blocks_off_by_default(self):
        assert tokenize("{% if a %}\nx") == [Token(BLOCK, "if a", 1), Token(TEXT, "\nx", 1)]

    def test_trim_blocks_only_one_newline(self):
        assert tokenize("{% a %}\n\nb", trim_blocks=True) == [
            Token(BLOCK, "a", 1),
            Token(TEXT, "\nb", 2),
        ]

    def test_trim_blocks_at_end(self):
        assert tokenize("x{% a %}", trim_blocks=True) == [Token(TEXT, "x", 1), Token(BLOCK, "a", 1)]

    @pytest.mark.parametrize(
        "source,message",
        [
            ("ab\n{{ x", "line 2: unclosed '{{'"),
            ("{% if", "line 1: unclosed '{%'"),
            ("\n\n{# note", "line 3: unclosed '{#'"),
            ("a {{  }}", "line 1: empty variable tag"),
            ("\n{%   %}", "line 2: empty block tag"),
            ("{{}}", "line 1: empty variable tag"),
            ("x{%%}", "line 1: empty block tag"),
        ],
    )
    def test_errors(self, source, message):
        with pytest.raises(TemplateSyntaxError) as info:
            tokenize(source)
        assert str(info.value) == message

    def test_error_attributes(self):
        with pytest.raises(TemplateSyntaxError) as info:
            tokenize("\n\n{{ }}")
        assert info.value.line == 3
        assert info.value.message == "empty variable tag"

    def test_token_equality_and_repr(self):
        token = Token(VAR, "x", 2)
        assert token == Token(VAR, "x", 2)
        assert token != Token(VAR, "x", 3)
        assert token != Token(TEXT, "x", 2)
        assert token != Token(VAR, "y", 2)
        assert token.__eq__("x") is NotImplemented
        assert repr(token) == "Token('var', 'x', 2)"


class TestSplitExpression:
    def test_words_and_filters(self):
        assert split_expression("user.name | upper") == ["user.name", "|", "upper"]

    def test_arguments(self):
        assert split_expression('x|truncate(5, ellipsis="..")') == [
            "x", "|", "truncate", "(", "5", ",", "ellipsis", "=", '".."', ")",
        ]

    def test_strings_keep_quotes_and_spaces(self):
        assert split_expression("'a b' == \"c|d\"") == ["'a b'", "==", '"c|d"']

    @pytest.mark.parametrize("op", ["==", "!=", "<=", ">=", "<", ">"])
    def test_comparisons(self, op):
        assert split_expression(f"a{op}b") == ["a", op, "b"]
        assert split_expression(f"a {op} 3") == ["a", op, "3"]

    def test_negative_numbers(self):
        assert split_expression("n > -5") == ["n", ">", "-5"]
        assert split_expression("-x_1") == ["-x_1"]

    def test_whitespace(self):
        assert split_expression("  \t a  ") == ["a"]
        assert split_expression("") == []

    def test_unterminated_string(self):
        with pytest.raises(TemplateSyntaxError, match="line 4: unterminated string"):
            split_expression("'abc", line=4)

    @pytest.mark.parametrize("text,ch", [("a ! b", "!"), ("x + 1", "+"), ("- 1", "-"), ("a$", "$")])
    def test_unexpected_character(self, text, ch):
        with pytest.raises(TemplateSyntaxError, match=f"line 1: unexpected character '\\{ch}'"):
            split_expression(text)
