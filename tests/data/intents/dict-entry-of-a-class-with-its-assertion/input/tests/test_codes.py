from unittest import TestCase

from codes import FORE


class TestCodes(TestCase):
    def test_fore(self):
        self.assertEqual(FORE.BLACK, '\033[30m')
        self.assertEqual(FORE.RED, '\033[31m')
        self.assertEqual(FORE.GREEN, '\033[32m')
        self.assertEqual(FORE.RESET, '\033[39m')

    def test_reset_is_default(self):
        self.assertTrue(FORE.RESET.endswith('39m'))
