import json


def load(text):
    try:
        value = json.loads(text)
        if value:
            return value
    except ValueError as error:
        raise RuntimeError(error)
    return {}
