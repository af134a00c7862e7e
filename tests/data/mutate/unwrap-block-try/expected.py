import json


def load(text):
    value = json.loads(text)
    if value:
        return value
    return {}
