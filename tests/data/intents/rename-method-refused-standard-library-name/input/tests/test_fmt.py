import logging

from fmt import KeyValueFormatter


def test_format():
    record = logging.LogRecord("x", logging.INFO, __file__, 1, "hi", None, None)
    assert KeyValueFormatter().format(record) == "level=INFO msg=hi"
