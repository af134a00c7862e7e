def _fetch_words(text):
    return len(text.split())


def summary(text):
    """Word and line counts (`_fetch_words` does the words).

    Words are counted by whitespace, as a count words tool would.
    """
    return _fetch_words(text), text.count("\n") + 1
