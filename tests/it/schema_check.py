"""JSON Schema checks for tests/it/schemas.rs with `jsonschema`, the reference Python
implementation of the specification (draft 2020-12).

Reads one JSON object on stdin: {"schemas": {name: schema}, "documents": [[name,
document], ...]}. Writes one JSON object: {"schema_errors": {name: message or null},
"document_errors": [[[instance path, message], ...], ...]} — a schema's error when it
is not a valid draft 2020-12 schema, and each document's errors in order, the instance
path as a JSON pointer ("/" for the root).
"""

import json
import sys

from jsonschema import Draft202012Validator
from jsonschema.exceptions import SchemaError


def pointer(error):
    parts = [str(part).replace("~", "~0").replace("/", "~1") for part in error.absolute_path]
    return "/" + "/".join(parts)


def main():
    request = json.load(sys.stdin)
    schema_errors = {}
    validators = {}
    for name, schema in request["schemas"].items():
        try:
            Draft202012Validator.check_schema(schema)
            schema_errors[name] = None
        except SchemaError as error:
            schema_errors[name] = f"{error.message} (at {pointer(error)})"
        validators[name] = Draft202012Validator(schema)
    document_errors = []
    for name, document in request["documents"]:
        errors = sorted(validators[name].iter_errors(document), key=lambda e: list(map(str, e.absolute_path)))
        document_errors.append([[pointer(e), e.message] for e in errors])
    json.dump({"schema_errors": schema_errors, "document_errors": document_errors}, sys.stdout)


if __name__ == "__main__":
    main()
