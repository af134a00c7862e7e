"""A codec registered with the interpreter when the module is imported, as idna's is."""

import codecs


class IncrementalEncoder(codecs.IncrementalEncoder):
    def encode(self, text, final=False):
        return text.upper().encode("ascii")


def search(name):
    if name != "shout":
        return None
    return codecs.CodecInfo(
        name="shout",
        encode=lambda text, errors="strict": (text.upper().encode("ascii"), len(text)),
        decode=lambda data, errors="strict": (bytes(data).decode("ascii").lower(), len(data)),
        incrementalencoder=IncrementalEncoder,
    )


codecs.register(search)
