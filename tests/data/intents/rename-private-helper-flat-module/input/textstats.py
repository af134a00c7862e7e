def _get_words(text):
    return len(text.split())


def summary(text):
    """Word and line counts (`_get_words` does the words).

    Words are counted by whitespace, as a count words tool would.
    """
    return _get_words(text), text.count("\n") + 1
