import codecs

import pkg.codec


def test_the_registered_codec_is_the_module_s():
    assert codecs.lookup("shout").incrementalencoder is pkg.codec.IncrementalEncoder


def test_encode():
    assert "hi".encode("shout") == b"HI"
