"""A small calculator library: validated arithmetic, number theory helpers,
rounding modes, an infix expression evaluator and a memory register."""

import math
from decimal import Decimal, ROUND_HALF_UP, ROUND_HALF_EVEN, ROUND_DOWN, ROUND_UP
from decimal import ROUND_FLOOR, ROUND_CEILING


MAX_POWER_EXPONENT = 1000
MAX_FACTORIAL = 170


def check_number(value, name="value"):
    """Return value if it is a real, finite number; raise otherwise."""
    if isinstance(value, bool):
        raise TypeError(f"{name} must be a number, not bool")
    if not isinstance(value, (int, float)):
        raise TypeError(f"{name} must be a number")
    if isinstance(value, float):
        if math.isnan(value):
            raise ValueError(f"{name} must not be NaN")
        if math.isinf(value):
            raise ValueError(f"{name} must be finite")
    return value


def check_integer(value, name="value"):
    """Return value if it is an int (bools rejected)."""
    if isinstance(value, bool) or not isinstance(value, int):
        raise TypeError(f"{name} must be an integer")
    return value


def add(a, b):
    check_number(a, "a")
    check_number(b, "b")
    return a + b


def subtract(a, b):
    check_number(a, "a")
    check_number(b, "b")
    return a - b


def multiply(a, b):
    check_number(a, "a")
    check_number(b, "b")
    return a * b


def divide(a, b):
    check_number(a, "a")
    check_number(b, "b")
    if b == 0:
        raise ZeroDivisionError("division by zero")
    return a / b


def int_divide(a, b, mode="floor"):
    """Integer division rounding the quotient by mode: floor, trunc or ceil."""
    check_integer(a, "a")
    check_integer(b, "b")
    if b == 0:
        raise ZeroDivisionError("integer division by zero")
    quotient = a // b
    remainder = a - quotient * b
    if mode == "floor":
        return quotient
    elif mode == "trunc":
        if remainder != 0 and quotient < 0:
            return quotient + 1
        return quotient
    elif mode == "ceil":
        if remainder != 0:
            return quotient + 1
        return quotient
    raise ValueError(f"unknown division mode: {mode}")


def modulo(a, b, mode="floor"):
    """Remainder matching int_divide: a == int_divide(a, b, mode) * b + modulo(a, b, mode)."""
    quotient = int_divide(a, b, mode=mode)
    return a - quotient * b


def power(base, exponent, limit=MAX_POWER_EXPONENT):
    """Raise base to an integer exponent by repeated multiplication."""
    check_number(base, "base")
    check_integer(exponent, "exponent")
    if abs(exponent) > limit:
        raise ValueError(f"exponent exceeds limit of {limit}")
    if exponent < 0 and base == 0:
        raise ZeroDivisionError("zero cannot be raised to a negative power")
    result = 1
    count = 0
    while count < abs(exponent):
        result = result * base
        count += 1
    if exponent < 0:
        return 1 / result
    return result


def factorial(n, limit=MAX_FACTORIAL):
    check_integer(n, "n")
    if n < 0:
        raise ValueError("factorial is undefined for negative numbers")
    if n > limit:
        raise ValueError(f"factorial argument exceeds limit of {limit}")
    result = 1
    for k in range(2, n + 1):
        result *= k
    return result


def gcd(a, b):
    """Greatest common divisor by Euclid's algorithm; always non-negative."""
    check_integer(a, "a")
    check_integer(b, "b")
    a = abs(a)
    b = abs(b)
    while b != 0:
        a, b = b, a % b
    return a


def lcm(a, b):
    check_integer(a, "a")
    check_integer(b, "b")
    if a == 0 or b == 0:
        return 0
    return abs(a * b) // gcd(a, b)


def gcd_many(values):
    if len(values) == 0:
        raise ValueError("gcd_many needs at least one value")
    result = 0
    for value in values:
        result = gcd(result, value)
        if result == 1:
            break
    return result


def percentage(part, whole, precision=2):
    """Return part as a percentage of whole, rounded half-up to precision places."""
    check_number(part, "part")
    check_number(whole, "whole")
    if whole == 0:
        raise ZeroDivisionError("whole must not be zero")
    return round_value(part * 100 / whole, digits=precision)


def percent_change(old, new, precision=2):
    check_number(old, "old")
    check_number(new, "new")
    if old == 0:
        raise ZeroDivisionError("old value must not be zero")
    return round_value((new - old) * 100 / abs(old), digits=precision)


def round_value(value, digits=0, mode="half_up"):
    """Round to digits decimal places using one of several rounding modes."""
    check_number(value, "value")
    check_integer(digits, "digits")
    if digits < 0 or digits > 12:
        raise ValueError("digits must be between 0 and 12")
    if mode == "half_up":
        rounding = ROUND_HALF_UP
    elif mode == "half_even":
        rounding = ROUND_HALF_EVEN
    elif mode == "down":
        rounding = ROUND_DOWN
    elif mode == "up":
        rounding = ROUND_UP
    elif mode == "floor":
        rounding = ROUND_FLOOR
    elif mode == "ceiling":
        rounding = ROUND_CEILING
    else:
        raise ValueError(f"unknown rounding mode: {mode}")
    quantum = Decimal(10) ** -digits
    result = Decimal(str(value)).quantize(quantum, rounding=rounding)
    if digits == 0:
        return int(result)
    return float(result)


OPERATORS = "+-*/()"


def tokenize(text):
    """Split an arithmetic expression into numbers and single-character operators."""
    tokens = []
    i = 0
    while i < len(text):
        ch = text[i]
        if ch.isspace():
            i += 1
            continue
        if ch in OPERATORS:
            tokens.append(ch)
            i += 1
            continue
        if ch.isdigit() or ch == ".":
            start = i
            while i < len(text) and (text[i].isdigit() or text[i] == "."):
                i += 1
            literal = text[start:i]
            if literal.count(".") > 1 or literal == ".":
                raise ValueError(f"malformed number: {literal}")
            if "." in literal:
                tokens.append(float(literal))
            else:
                tokens.append(int(literal))
            continue
        raise ValueError(f"unexpected character {ch!r} at position {i}")
    return tokens


class _Parser:
    def __init__(self, tokens):
        self.tokens = tokens
        self.pos = 0

    def peek(self):
        if self.pos >= len(self.tokens):
            return None
        return self.tokens[self.pos]

    def take(self):
        token = self.peek()
        self.pos += 1
        return token

    def expression(self):
        value = self.term()
        while self.peek() in ("+", "-"):
            op = self.take()
            right = self.term()
            if op == "+":
                value = value + right
            else:
                value = value - right
        return value

    def term(self):
        value = self.factor()
        while self.peek() in ("*", "/"):
            op = self.take()
            right = self.factor()
            if op == "*":
                value = value * right
            else:
                value = divide(value, right)
        return value

    def factor(self):
        token = self.take()
        if token == "-":
            return -self.factor()
        if token == "+":
            return self.factor()
        if token == "(":
            value = self.expression()
            if self.take() != ")":
                raise ValueError("missing closing parenthesis")
            return value
        if token is None or isinstance(token, str):
            raise ValueError(f"unexpected token: {token!r}")
        return token


def evaluate(text):
    """Evaluate an infix expression with + - * / and parentheses."""
    tokens = tokenize(text)
    if len(tokens) == 0:
        raise ValueError("empty expression")
    parser = _Parser(tokens)
    value = parser.expression()
    if parser.pos != len(tokens):
        raise ValueError(f"unexpected token: {parser.peek()!r}")
    return value


class Memory:
    """A calculator memory register with an accumulator and undo history."""

    def __init__(self, initial=0, max_history=10):
        check_number(initial, "initial")
        if max_history < 1:
            raise ValueError("max_history must be at least 1")
        self.value = initial
        self.max_history = max_history
        self.history = []

    def _remember(self):
        self.history.append(self.value)
        if len(self.history) > self.max_history:
            self.history.pop(0)

    def store(self, value):
        check_number(value)
        self._remember()
        self.value = value
        return self.value

    def recall(self):
        return self.value

    def clear(self):
        self._remember()
        self.value = 0

    def apply(self, op, operand):
        """Combine the stored value with operand using op (+, -, *, /)."""
        if op == "+":
            result = add(self.value, operand)
        elif op == "-":
            result = subtract(self.value, operand)
        elif op == "*":
            result = multiply(self.value, operand)
        elif op == "/":
            result = divide(self.value, operand)
        else:
            raise ValueError(f"unknown operator: {op}")
        return self.store(result)

    def undo(self):
        if len(self.history) == 0:
            raise IndexError("nothing to undo")
        self.value = self.history.pop()
        return self.value

    def evaluate_into(self, text):
        """Evaluate an expression and store its result."""
        return self.store(evaluate(text))
