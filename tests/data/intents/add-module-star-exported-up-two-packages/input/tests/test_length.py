import unittest

from units.convert.length import feet_to_metres, metres_to_feet


class TestLength(unittest.TestCase):
    def test_feet(self):
        self.assertAlmostEqual(feet_to_metres(10), 3.048)

    def test_metres(self):
        self.assertAlmostEqual(metres_to_feet(3.048), 10)
