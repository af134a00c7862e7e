import logging


class KeyValueFormatter(logging.Formatter):
    def format(self, record):
        return f"level={record.levelname} msg={record.getMessage()}"
