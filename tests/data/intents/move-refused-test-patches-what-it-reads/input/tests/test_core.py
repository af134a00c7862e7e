from unittest import mock

from app.core import stamp


def test_stamp():
    with mock.patch("app.core.time.time", return_value=7):
        assert stamp("x") == "7 x"
