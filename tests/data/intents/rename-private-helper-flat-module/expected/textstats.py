def _tally_words(text):
    return len(text.split())


def summary(text):
    """Word and line counts (`_tally_words` does the words).

    Words are counted by whitespace, as a count words tool would.
    """
    return _tally_words(text), text.count("\n") + 1
