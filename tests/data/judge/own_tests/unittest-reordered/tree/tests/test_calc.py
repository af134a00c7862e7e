import unittest

from calc import add, div, mul


class CalcTest(unittest.TestCase):
    def test_div(self):
        self.assertEqual(div(6, 3), 2)
        with self.assertRaises(ZeroDivisionError):
            div(1, 0)

    def test_mul(self):
        self.assertEqual(mul(0, 3), 0)
        self.assertEqual(mul(2, 3), 6)
        self.assertTrue(mul(1, 1))

    def test_add(self):
        self.assertEqual(add(2, 3), 5)
