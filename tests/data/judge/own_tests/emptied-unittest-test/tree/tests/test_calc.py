import unittest

from calc import add, div, mul


class CalcTest(unittest.TestCase):
    def test_add(self):
        self.assertEqual(add(2, 3), 5)

    def test_mul(self):
        mul(2, 3)
        mul(0, 3)

    def test_div(self):
        self.assertEqual(div(6, 3), 2)
        with self.assertRaises(ZeroDivisionError):
            div(1, 0)
