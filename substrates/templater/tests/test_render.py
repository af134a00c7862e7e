import pytest

from templater import Markup, RenderError, Template, render_string
from templater.render import MISSING, Scope, compare, lookup


class User:
    def __init__(self, name, admin=False):
        self.name = name
        self.admin = admin
        self._secret = "s3"


class TestLookup:
    def test_dict_list_attribute(self):
        data = {"users": [User("ann"), User("bob")], "meta": {"count": 2}}
        assert lookup(data, "users.1.name") == "bob"
        assert lookup(data, "meta.count") == 2
        assert lookup(data, "users") is data["users"]

    def test_missing_key(self):
        assert lookup({"a": 1}, "b") is MISSING
        assert lookup({"a": {"b": 1}}, "a.c") is MISSING

    def test_list_index_bounds(self):
        items = ("x", "y", "z")
        assert lookup(items, "2") == "z"
        assert lookup(items, "3") is MISSING
        assert lookup(items, "first") is MISSING
        assert lookup(["a"], "0") == "a"

    def test_attributes(self):
        user = User("ann")
        assert lookup(user, "name") == "ann"
        assert lookup(user, "email") is MISSING
        assert lookup(user, "_secret") is MISSING


class TestScope:
    def test_resolve_through_parents(self):
        outer = Scope({"a": 1, "b": {"c": 2}})
        inner = Scope({"a": 10}, outer)
        assert inner.resolve("a") == 10
        assert inner.resolve("b.c") == 2
        assert outer.resolve("a") == 1
        assert inner.resolve("zzz") is MISSING
        assert inner.resolve("b.zzz") is MISSING

    def test_falsy_values_found(self):
        assert Scope({"a": None}).resolve("a") is None
        assert Scope({"a": 0}).resolve("a") == 0


class TestCompare:
    @pytest.mark.parametrize(
        "left,op,right,expected",
        [
            (1, "==", 1, True), (1, "==", 2, False),
            (1, "!=", 2, True), (1, "!=", 1, False),
            (1, "<", 2, True), (2, "<", 2, False),
            (3, ">", 2, True), (2, ">", 2, False),
            (2, "<=", 2, True), (3, "<=", 2, False),
            (2, ">=", 2, True), (1, ">=", 2, False),
        ],
    )
    def test_operators(self, left, op, right, expected):
        assert compare(left, op, right) is expected


class TestOutput:
    def test_variables_and_text(self):
        assert render_string("Hi {{ name }}, {{ user.name }}!", {"name": "A", "user": User("B")}) \
            == "Hi A, B!"

    def test_extra_keywords_override_context(self):
        t = Template("{{ a }}{{ b }}")
        assert t.render({"a": 1, "b": 2}, b=3) == "13"
        assert t.render(a="x", b="y") == "xy"
        assert t.render() == ""

    def test_context_not_mutated(self):
        context = {"a": 1}
        Template("{{ a }}").render(context, b=2)
        assert context == {"a": 1}

    def test_literals(self):
        assert render_string('{{ "lit" }} {{ 42 }} {{ -7 }} {{ true }} {{ none }}') == "lit 42 -7 True "

    def test_none_renders_empty(self):
        assert render_string("[{{ x }}]", {"x": None}) == "[]"

    def test_zero_and_false_render(self):
        assert render_string("{{ a }}{{ b }}", {"a": 0, "b": False}) == "0False"

    def test_list_joined_with_comma(self):
        assert render_string("{{ xs }}", {"xs": [1, "b", 3]}) == "1, b, 3"
        assert render_string("{{ xs }}", {"xs": ("p", "q")}) == "p, q"

    def test_autoescape(self):
        context = {"v": "<a title=\"x\">'&'</a>"}
        assert render_string("{{ v }}", context) == \
            "&lt;a title=&quot;x&quot;&gt;&#39;&amp;&#39;&lt;/a&gt;"
        assert render_string("{{ v }}", context, autoescape=False) == context["v"]

    def test_list_items_escaped(self):
        assert render_string("{{ xs }}", {"xs": ["<", "'"]}) == "&lt;, &#39;"

    def test_safe_and_markup_not_escaped(self):
        assert render_string("{{ v|safe }}", {"v": "<b>"}) == "<b>"
        assert render_string("{{ v }}", {"v": Markup("<i>")}) == "<i>"

    def test_escape_filter_not_doubled(self):
        assert render_string("{{ v|e }}", {"v": "<'>"}) == "&lt;'&gt;"
        assert render_string("{{ v|escape }}", {"v": "&"}) == "&amp;"

    def test_autoescape_off_returns_plain_str(self):
        result = Template("{{ v }}", autoescape=False).render(v=5)
        assert result == "5"
        assert type(result) is str


class TestFilters:
    def test_chain(self):
        assert render_string("{{ n|upper|truncate(4) }}", {"n": "abcdefg"}) == "A..."

    def test_keyword_arguments(self):
        source = '{{ n|pad(5, align="right", fill="0") }}|{{ n|truncate(width=2, ellipsis="") }}'
        assert render_string(source, {"n": 123}) == "00123|12"

    def test_argument_from_context(self):
        assert render_string("{{ xs|join(sep) }}", {"xs": [1, 2], "sep": "+"}) == "1+2"
        assert render_string("{{ xs|join(sep=cfg.s) }}", {"xs": [1, 2], "cfg": {"s": ":"}}) == "1:2"

    def test_default_for_missing(self):
        assert render_string('{{ x|default("n/a") }}') == "n/a"
        assert render_string('{{ x|default("n/a") }}', {"x": "set"}) == "set"
        assert render_string('{{ x|default("n/a", boolean=true) }}', {"x": ""}) == "n/a"

    def test_number_and_plural(self):
        source = "{{ n|number }} item{{ n|plural }}"
        assert render_string(source, {"n": 1}) == "1 item"
        assert render_string(source, {"n": 1200}) == "1,200 items"

    def test_length(self):
        assert render_string("{{ xs|length }}", {"xs": "abcd"}) == "4"

    def test_unknown_filter(self):
        with pytest.raises(RenderError, match="line 2: unknown filter 'shout'") as info:
            render_string("\n{{ x|shout }}", {"x": 1})
        assert info.value.line == 2

    def test_filter_failure(self):
        with pytest.raises(RenderError, match="line 1: filter 'number' failed: number filter needs"):
            render_string("{{ x|number }}", {"x": "abc"})
        with pytest.raises(RenderError, match="filter 'pad' failed: fill must be"):
            render_string('{{ x|pad(3, fill="ab") }}', {"x": 1})
        with pytest.raises(RenderError, match="filter 'upper' failed"):
            render_string("{{ x|upper(1) }}", {"x": "a"})


class TestStrict:
    def test_lenient_by_default(self):
        assert render_string("[{{ missing }}][{{ a.b.c }}]", {"a": {}}) == "[][]"

    def test_strict_undefined(self):
        with pytest.raises(RenderError, match="line 3: undefined variable 'user.email'"):
            render_string("\n\n{{ user.email }}", {"user": User("x")}, strict=True)

    def test_strict_allows_default(self):
        assert render_string('{{ x|default("d") }}', strict=True) == "d"

    def test_strict_default_must_be_first(self):
        with pytest.raises(RenderError, match="undefined variable 'x'"):
            render_string('{{ x|upper|default("d") }}', strict=True)

    def test_strict_filter_argument(self):
        with pytest.raises(RenderError, match="undefined variable 'sep'"):
            render_string("{{ xs|join(sep) }}", {"xs": [1]}, strict=True)

    def test_strict_conditions_are_lenient(self):
        assert render_string("{% if ghost %}a{% else %}b{% endif %}", strict=True) == "b"
        assert render_string("{% if ghost == 1 %}a{% else %}b{% endif %}", strict=True) == "b"
        assert render_string("{% if 1 == ghost %}a{% else %}b{% endif %}", strict=True) == "b"
        assert render_string("{% if x == ghost %}a{% endif %}", {"x": None}, strict=True) == "a"

    def test_strict_defined_values(self):
        assert render_string("{{ a }}", {"a": None}, strict=True) == ""


class TestIf:
    @pytest.mark.parametrize(
        "context,expected",
        [({"a": 1}, "A"), ({"a": 0, "b": 1}, "B"), ({"b": 0}, "C"), ({}, "C")],
    )
    def test_branches(self, context, expected):
        source = "{% if a %}A{% elif b %}B{% else %}C{% endif %}"
        assert render_string(source, context) == expected

    def test_first_true_branch_only(self):
        source = "{% if a %}1{% elif a %}2{% endif %}"
        assert render_string(source, {"a": True}) == "1"

    def test_no_else(self):
        assert render_string("x{% if a %}y{% endif %}z", {"a": False}) == "xz"

    def test_not(self):
        assert render_string("{% if not a %}yes{% endif %}", {"a": ""}) == "yes"
        assert render_string("{% if not a %}yes{% endif %}", {"a": "x"}) == ""
        assert render_string("{% if not n > 3 %}small{% endif %}", {"n": 3}) == "small"
        assert render_string("{% if not n > 3 %}small{% endif %}", {"n": 4}) == ""

    @pytest.mark.parametrize(
        "cond,n,expected",
        [
            ("n == 2", 2, "T"), ("n == 2", 3, "F"), ("n != 2", 2, "F"),
            ("n < 2", 1, "T"), ("n < 2", 2, "F"), ("n > 2", 3, "T"), ("n > 2", 2, "F"),
            ("n <= 2", 2, "T"), ("n <= 2", 3, "F"), ("n >= 2", 2, "T"), ("n >= 2", 1, "F"),
            ("n|length == 3", [1, 2, 3], "T"), ('n == "x"', "x", "T"),
        ],
    )
    def test_comparisons(self, cond, n, expected):
        source = "{% if " + cond + " %}T{% else %}F{% endif %}"
        assert render_string(source, {"n": n}) == expected

    def test_incomparable(self):
        with pytest.raises(RenderError, match=r"line 2: cannot compare with '<'"):
            render_string("\n{% if a < 1 %}x{% endif %}", {"a": "s"})


class TestFor:
    def test_simple(self):
        assert render_string("{% for x in xs %}[{{ x }}]{% endfor %}", {"xs": [1, 2]}) == "[1][2]"

    def test_else_when_empty_or_missing(self):
        source = "{% for x in xs %}{{ x }}{% else %}none{% endfor %}"
        assert render_string(source, {"xs": []}) == "none"
        assert render_string(source) == "none"
        assert render_string(source, {"xs": [0]}) == "0"

    def test_loop_variables(self):
        source = ("{% for x in xs %}{{ loop.index }}{{ loop.index0 }}{{ loop.revindex }}"
                  "{{ loop.length }}{% if loop.first %}F{% endif %}{% if loop.last %}L{% endif %};"
                  "{% endfor %}")
        assert render_string(source, {"xs": "abc".split("b")}) == "1022F;2112L;"
        assert render_string(source, {"xs": ["q"]}) == "1011FL;"

    def test_loop_scope_shadows_and_restores(self):
        source = "{{ x }}{% for x in xs %}{{ x }}{{ y }}{% endfor %}{{ x }}"
        assert render_string(source, {"x": "o", "xs": [1, 2], "y": "-"}) == "o1-2-o"

    def test_nested_loops(self):
        source = ("{% for row in rows %}{% for c in row %}{{ loop.index }}{{ c }}"
                  "{% endfor %}/{% endfor %}")
        assert render_string(source, {"rows": [["a", "b"], ["c"]]}) == "1a2b/1c/"

    def test_dict_keys_sorted(self):
        source = "{% for k in d %}{{ k }}{% endfor %}"
        assert render_string(source, {"d": {"b": 1, "a": 2}}) == "ab"

    def test_dict_items_sorted(self):
        source = "{% for k, v in d %}{{ k }}={{ v }};{% endfor %}"
        assert render_string(source, {"d": {"b": 1, "a": 2}}) == "a=2;b=1;"

    def test_unpack_pairs(self):
        source = "{% for a, b in pairs %}{{ a }}{{ b }}{% endfor %}"
        assert render_string(source, {"pairs": [(1, 2), [3, 4]]}) == "1234"
        with pytest.raises(RenderError, match="line 1: cannot unpack loop item into two names"):
            render_string(source, {"pairs": [(1, 2, 3)]})
        with pytest.raises(RenderError, match="cannot unpack"):
            render_string(source, {"pairs": ["ab"]})

    def test_generator_and_range(self):
        assert render_string("{% for i in r %}{{ i }}{% endfor %}", {"r": range(3)}) == "012"

    def test_string_rejected(self):
        with pytest.raises(RenderError, match="line 1: cannot loop over a string"):
            render_string("{% for c in s %}{% endfor %}", {"s": "abc"})

    def test_not_iterable(self):
        with pytest.raises(RenderError, match="line 2: value is not iterable"):
            render_string("\n{% for c in n %}{% endfor %}", {"n": 5})

    def test_iteration_limit(self):
        source = "{% for i in r %}.{% endfor %}"
        assert Template(source, max_iterations=3).render(r=range(3)) == "..."
        with pytest.raises(RenderError, match="loop exceeds 3 iterations"):
            Template(source, max_iterations=3).render(r=range(4))
        with pytest.raises(RenderError, match="loop exceeds 2 iterations"):
            Template(source, max_iterations=2).render(r={"a": 1, "b": 2, "c": 3})

    def test_default_iteration_limit(self):
        source = "{% for i in r %}.{% endfor %}"
        assert len(Template(source).render(r=range(1000))) == 1000
        with pytest.raises(RenderError, match="loop exceeds 1000 iterations"):
            Template(source).render(r=range(1001))

    def test_max_iterations_guard(self):
        assert Template("x", max_iterations=1).max_iterations == 1
        with pytest.raises(ValueError, match="max_iterations must be at least 1"):
            Template("x", max_iterations=0)


class TestTemplateOptions:
    def test_defaults(self):
        t = Template("x")
        assert t.autoescape is True
        assert t.strict is False
        assert t.max_iterations == 1000

    def test_trim_blocks(self):
        source = "{% for x in xs %}\n{{ x }}\n{% endfor %}\ndone"
        assert render_string(source, {"xs": [1, 2]}) == "\n1\n\n2\n\ndone"
        assert render_string(source, {"xs": [1, 2]}, trim_blocks=True) == "1\n2\ndone"

    def test_template_reusable(self):
        t = Template("{{ n }}")
        assert t.render(n=1) == "1"
        assert t.render(n=2) == "2"
