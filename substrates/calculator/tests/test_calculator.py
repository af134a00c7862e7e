import math

import pytest

import calculator
from calculator import (
    Memory, add, check_integer, check_number, divide, evaluate, factorial, gcd,
    gcd_many, int_divide, lcm, modulo, multiply, percent_change, percentage,
    power, round_value, subtract, tokenize,
)


# --- validation -------------------------------------------------------------

def test_check_number_accepts_int_and_float():
    assert check_number(3) == 3
    assert check_number(-2.5) == -2.5


@pytest.mark.parametrize("bad", ["1", None, [1], 1j])
def test_check_number_rejects_non_numbers(bad):
    with pytest.raises(TypeError, match="x must be a number"):
        check_number(bad, "x")


def test_check_number_rejects_bool_with_message():
    with pytest.raises(TypeError, match="x must be a number, not bool"):
        check_number(True, "x")


def test_check_number_default_name():
    with pytest.raises(TypeError, match="^value must be a number$"):
        check_number("a")


def test_check_number_rejects_nan_and_inf():
    with pytest.raises(ValueError, match="x must not be NaN"):
        check_number(float("nan"), "x")
    with pytest.raises(ValueError, match="x must be finite"):
        check_number(float("inf"), "x")
    with pytest.raises(ValueError, match="x must be finite"):
        check_number(float("-inf"), "x")


def test_check_integer():
    assert check_integer(7) == 7
    assert check_integer(-7, "n") == -7
    with pytest.raises(TypeError, match="^n must be an integer$"):
        check_integer(2.0, "n")
    with pytest.raises(TypeError, match="^value must be an integer$"):
        check_integer(False)


# --- basic arithmetic -------------------------------------------------------

def test_add_subtract_multiply_divide():
    assert add(2, 3) == 5
    assert add(-2, 0.5) == -1.5
    assert subtract(2, 3) == -1
    assert subtract(10, 4) == 6
    assert multiply(4, 3) == 12
    assert multiply(-2, 2.5) == -5.0
    assert divide(7, 2) == 3.5
    assert divide(-9, 3) == -3.0


@pytest.mark.parametrize("func", [add, subtract, multiply, divide])
def test_basic_ops_validate_both_args(func):
    with pytest.raises(TypeError, match="^a must be a number$"):
        func("1", 2)
    with pytest.raises(TypeError, match="^b must be a number$"):
        func(1, "2")


def test_divide_by_zero():
    with pytest.raises(ZeroDivisionError, match="^division by zero$"):
        divide(1, 0)
    with pytest.raises(ZeroDivisionError, match="division by zero"):
        divide(1, 0.0)
    with pytest.raises(ZeroDivisionError, match="^division by zero$"):
        divide(2.5, 0.0)


# --- integer division / modulo ---------------------------------------------

@pytest.mark.parametrize("a,b,floor,trunc,ceil", [
    (7, 2, 3, 3, 4),
    (-7, 2, -4, -3, -3),
    (7, -2, -4, -3, -3),
    (-7, -2, 3, 3, 4),
    (6, 3, 2, 2, 2),
    (-6, 3, -2, -2, -2),
    (0, 5, 0, 0, 0),
    (1, 2, 0, 0, 1),
    (-1, 2, -1, 0, 0),
])
def test_int_divide_modes(a, b, floor, trunc, ceil):
    assert int_divide(a, b) == floor
    assert int_divide(a, b, mode="floor") == floor
    assert int_divide(a, b, mode="trunc") == trunc
    assert int_divide(a, b, mode="ceil") == ceil


def test_int_divide_errors():
    with pytest.raises(ZeroDivisionError, match="integer division by zero"):
        int_divide(1, 0)
    with pytest.raises(ValueError, match="unknown division mode: round"):
        int_divide(7, 2, mode="round")
    with pytest.raises(ValueError, match="unknown division mode: round"):
        int_divide(6, 2, mode="round")
    with pytest.raises(TypeError, match="^a must be an integer$"):
        int_divide(1.5, 2)
    with pytest.raises(TypeError, match="^b must be an integer$"):
        int_divide(1, 2.0)


@pytest.mark.parametrize("a,b,floor,trunc,ceil", [
    (7, 2, 1, 1, -1),
    (-7, 2, 1, -1, -1),
    (7, -2, -1, 1, 1),
    (-7, -2, -1, -1, 1),
    (9, 3, 0, 0, 0),
])
def test_modulo_modes(a, b, floor, trunc, ceil):
    assert modulo(a, b) == floor
    assert modulo(a, b, mode="floor") == floor
    assert modulo(a, b, mode="trunc") == trunc
    assert modulo(a, b, mode="ceil") == ceil


# --- power / factorial ------------------------------------------------------

@pytest.mark.parametrize("base,exp,expected", [
    (2, 0, 1),
    (2, 1, 2),
    (2, 10, 1024),
    (-3, 3, -27),
    (1.5, 2, 2.25),
    (2, -2, 0.25),
    (0, 0, 1),
    (0, 3, 0),
    (-2, -1, -0.5),
])
def test_power(base, exp, expected):
    assert power(base, exp) == expected


def test_power_result_types():
    assert isinstance(power(2, 3), int)
    assert isinstance(power(2, -1), float)
    assert isinstance(power(2, 0), int)
    assert isinstance(power(5, 0), int)


def test_power_limit_boundaries():
    assert power(1, 1000) == 1
    assert power(1, -1000) == 1.0
    with pytest.raises(ValueError, match="exponent exceeds limit of 1000"):
        power(1, 1001)
    with pytest.raises(ValueError, match="exponent exceeds limit of 1000"):
        power(1, -1001)
    assert power(2, 5, limit=5) == 32
    with pytest.raises(ValueError, match="exponent exceeds limit of 4"):
        power(2, 5, limit=4)


def test_power_errors():
    with pytest.raises(ZeroDivisionError, match="zero cannot be raised"):
        power(0, -1)
    with pytest.raises(TypeError, match="exponent must be an integer"):
        power(2, 1.5)
    with pytest.raises(TypeError, match="base must be a number"):
        power("2", 2)


@pytest.mark.parametrize("n,expected", [(0, 1), (1, 1), (2, 2), (3, 6), (5, 120), (10, 3628800)])
def test_factorial(n, expected):
    assert factorial(n) == expected


def test_factorial_limits():
    assert factorial(170) == math.factorial(170)
    with pytest.raises(ValueError, match="exceeds limit of 170"):
        factorial(171)
    assert factorial(4, limit=4) == 24
    with pytest.raises(ValueError, match="exceeds limit of 3"):
        factorial(4, limit=3)
    with pytest.raises(ValueError, match="undefined for negative"):
        factorial(-1)
    with pytest.raises(TypeError, match="n must be an integer"):
        factorial(3.0)


def test_module_limits():
    assert calculator.MAX_POWER_EXPONENT == 1000
    assert calculator.MAX_FACTORIAL == 170


# --- gcd / lcm --------------------------------------------------------------

@pytest.mark.parametrize("a,b,expected", [
    (12, 18, 6), (18, 12, 6), (-12, 18, 6), (12, -18, 6), (0, 5, 5), (5, 0, 5),
    (0, 0, 0), (7, 13, 1), (17, 17, 17), (-5, 0, 5), (0, -4, 4), (-9, -6, 3),
])
def test_gcd(a, b, expected):
    assert gcd(a, b) == expected


def test_gcd_validation():
    with pytest.raises(TypeError, match="^a must be an integer$"):
        gcd(1.0, 2)
    with pytest.raises(TypeError, match="^b must be an integer$"):
        gcd(1, 2.0)


@pytest.mark.parametrize("a,b,expected", [
    (4, 6, 12), (-4, 6, 12), (4, -6, 12), (0, 6, 0), (6, 0, 0), (7, 3, 21), (5, 5, 5),
    (0, 0, 0), (1, 0, 0), (0, 1, 0),
])
def test_lcm(a, b, expected):
    result = lcm(a, b)
    assert result == expected
    assert isinstance(result, int)


def test_lcm_validation():
    with pytest.raises(TypeError, match="^a must be an integer$"):
        lcm(1.0, 2)
    with pytest.raises(TypeError, match="^b must be an integer$"):
        lcm(1, 2.0)
    with pytest.raises(TypeError, match="^a must be an integer$"):
        lcm(0.0, 5)
    with pytest.raises(TypeError, match="^b must be an integer$"):
        lcm(5, 0.0)


def test_gcd_many():
    assert gcd_many([12, 18, 24]) == 6
    assert gcd_many([-8]) == 8
    assert gcd_many([0, 0]) == 0
    assert gcd_many([4, 6, 9]) == 1
    assert gcd_many([30, 45, 60, 75]) == 15


def test_gcd_many_stops_at_one():
    # after reaching 1 the remaining values are not inspected
    assert gcd_many([2, 3, "ignored"]) == 1
    with pytest.raises(TypeError):
        gcd_many([2, 4, "bad"])


def test_gcd_many_empty():
    with pytest.raises(ValueError, match="at least one value"):
        gcd_many([])


# --- percentages ------------------------------------------------------------

def test_percentage():
    assert percentage(1, 3) == 33.33
    assert percentage(2, 3) == 66.67
    assert percentage(1, 8) == 12.5
    assert percentage(1, 3, precision=4) == 33.3333
    assert percentage(1, 3, precision=0) == 33
    assert percentage(-1, 4) == -25.0
    assert percentage(3, 2) == 150.0


def test_percentage_errors():
    with pytest.raises(ZeroDivisionError, match="whole must not be zero"):
        percentage(1, 0)
    with pytest.raises(TypeError, match="part must be a number"):
        percentage("1", 2)
    with pytest.raises(TypeError, match="whole must be a number"):
        percentage(1, "2")


def test_percent_change():
    assert percent_change(50, 75) == 50.0
    assert percent_change(80, 60) == -25.0
    assert percent_change(-50, -25) == 50.0
    assert percent_change(-50, -75) == -50.0
    assert percent_change(3, 4) == 33.33
    assert percent_change(3, 4, precision=3) == 33.333
    assert percent_change(3, 5, precision=0) == 67


def test_percent_change_errors():
    with pytest.raises(ZeroDivisionError, match="old value must not be zero"):
        percent_change(0, 5)
    with pytest.raises(TypeError, match="old must be a number"):
        percent_change(None, 5)
    with pytest.raises(TypeError, match="new must be a number"):
        percent_change(5, None)


# --- rounding ---------------------------------------------------------------

@pytest.mark.parametrize("mode,value,expected", [
    ("half_up", 2.5, 3), ("half_up", -2.5, -3), ("half_up", 2.4, 2),
    ("half_even", 2.5, 2), ("half_even", 3.5, 4), ("half_even", -2.5, -2),
    ("down", 2.9, 2), ("down", -2.9, -2),
    ("up", 2.1, 3), ("up", -2.1, -3),
    ("floor", 2.9, 2), ("floor", -2.1, -3),
    ("ceiling", 2.1, 3), ("ceiling", -2.9, -2),
])
def test_round_value_modes(mode, value, expected):
    result = round_value(value, mode=mode)
    assert result == expected
    assert isinstance(result, int)


def test_round_value_default_mode_is_half_up():
    assert round_value(0.5) == 1
    assert round_value(1.5) == 2


def test_round_value_digits():
    assert round_value(2.675, digits=2) == 2.68
    assert round_value(2.665, digits=2, mode="half_even") == 2.66
    assert round_value(1.23456, digits=3, mode="down") == 1.234
    assert isinstance(round_value(1.5, digits=1), float)
    assert round_value(0.1234567890125, digits=12) == 0.123456789013
    assert round_value(7, digits=1) == 7.0


def test_round_value_digit_bounds():
    with pytest.raises(ValueError, match="between 0 and 12"):
        round_value(1.0, digits=-1)
    with pytest.raises(ValueError, match="between 0 and 12"):
        round_value(1.0, digits=13)
    with pytest.raises(TypeError, match="digits must be an integer"):
        round_value(1.0, digits=1.0)
    with pytest.raises(TypeError, match="value must be a number"):
        round_value("1.0")


def test_round_value_unknown_mode():
    with pytest.raises(ValueError, match="unknown rounding mode: sideways"):
        round_value(1.5, mode="sideways")


# --- tokenizer / evaluator --------------------------------------------------

def test_tokenize():
    assert tokenize("1 + 2") == [1, "+", 2]
    assert tokenize("(12*3.5)/-4") == ["(", 12, "*", 3.5, ")", "/", "-", 4]
    assert tokenize("  ") == []
    assert tokenize(".5+7.") == [0.5, "+", 7.0]
    assert tokenize("10-2") == [10, "-", 2]


def test_tokenize_types():
    tokens = tokenize("3 3.0")
    assert isinstance(tokens[0], int)
    assert isinstance(tokens[1], float)


def test_tokenize_errors():
    with pytest.raises(ValueError, match=r"malformed number: 1\.2\.3"):
        tokenize("1.2.3")
    with pytest.raises(ValueError, match=r"malformed number: \.$"):
        tokenize("1 + .")
    with pytest.raises(ValueError, match=r"unexpected character 'x' at position 2"):
        tokenize("1 x")
    with pytest.raises(ValueError, match=r"unexpected character '\^' at position 1"):
        tokenize("2^3")


@pytest.mark.parametrize("text,expected", [
    ("1 + 2", 3),
    ("7 - 2 - 1", 4),
    ("2 * 3 + 4", 10),
    ("2 + 3 * 4", 14),
    ("(2 + 3) * 4", 20),
    ("8 / 4 / 2", 1.0),
    ("7 / 2", 3.5),
    ("-3 + 5", 2),
    ("+3 - -2", 5),
    ("2 * (3 - (4 - 1))", 0),
    ("10 - 2 * 3", 4),
    ("1.5 * 4", 6.0),
    ("-(2 + 3)", -5),
    ("42", 42),
    ("6 - 2 + 1", 5),
    ("12 / 3 * 2", 8.0),
])
def test_evaluate(text, expected):
    assert evaluate(text) == expected


def test_evaluate_errors():
    with pytest.raises(ValueError, match="empty expression"):
        evaluate("   ")
    with pytest.raises(ValueError, match="missing closing parenthesis"):
        evaluate("(1 + 2")
    with pytest.raises(ValueError, match="missing closing parenthesis"):
        evaluate("(1 + 2 3")
    with pytest.raises(ValueError, match=r"unexpected token: '\)'"):
        evaluate("1 + 2)")
    with pytest.raises(ValueError, match="unexpected token: 2"):
        evaluate("1 2 3")
    with pytest.raises(ValueError, match=r"unexpected token: '\*'"):
        evaluate("* 2")
    with pytest.raises(ValueError, match="unexpected token: None"):
        evaluate("1 +")
    with pytest.raises(ZeroDivisionError, match="division by zero"):
        evaluate("1 / (2 - 2)")


# --- memory -----------------------------------------------------------------

def test_memory_initial_and_store():
    m = Memory()
    assert m.recall() == 0
    assert m.max_history == 10
    assert m.store(5) == 5
    assert m.recall() == 5
    assert m.history == [0]
    m2 = Memory(initial=2.5, max_history=3)
    assert m2.recall() == 2.5
    assert m2.max_history == 3


def test_memory_validation():
    with pytest.raises(TypeError, match="initial must be a number"):
        Memory(initial="x")
    with pytest.raises(ValueError, match="max_history must be at least 1"):
        Memory(max_history=0)
    assert Memory(max_history=1).max_history == 1
    m = Memory()
    with pytest.raises(TypeError, match="value must be a number"):
        m.store("x")
    assert m.history == []


def test_memory_apply_each_operator():
    m = Memory(initial=10)
    assert m.apply("+", 5) == 15
    assert m.apply("-", 3) == 12
    assert m.apply("*", 2) == 24
    assert m.apply("/", 8) == 3.0
    assert m.history == [10, 15, 12, 24]


def test_memory_apply_errors():
    m = Memory(initial=1)
    with pytest.raises(ValueError, match="unknown operator: %"):
        m.apply("%", 2)
    with pytest.raises(ZeroDivisionError):
        m.apply("/", 0)
    assert m.recall() == 1
    assert m.history == []


def test_memory_clear_and_undo():
    m = Memory(initial=4)
    m.clear()
    assert m.recall() == 0
    assert m.undo() == 4
    assert m.recall() == 4
    with pytest.raises(IndexError, match="nothing to undo"):
        m.undo()


def test_memory_undo_sequence():
    m = Memory()
    m.store(1)
    m.store(2)
    m.store(3)
    assert m.undo() == 2
    assert m.undo() == 1
    assert m.undo() == 0
    assert m.history == []


def test_memory_history_limit():
    m = Memory(max_history=2)
    m.store(1)
    m.store(2)
    assert m.history == [0, 1]
    m.store(3)
    assert m.history == [1, 2]
    m.store(4)
    assert m.history == [2, 3]
    assert m.undo() == 3
    assert m.undo() == 2
    with pytest.raises(IndexError):
        m.undo()


def test_memory_evaluate_into():
    m = Memory(initial=9)
    assert m.evaluate_into("(1 + 2) * 3") == 9
    assert m.recall() == 9
    assert m.history == [9]
    assert m.evaluate_into("7 / 2") == 3.5
    assert m.undo() == 9
