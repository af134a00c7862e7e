def _count_words(text):
    return len(text.split())


def summary(text):
    """Word and line counts (`_count_words` does the words).

    Words are counted by whitespace, as a count words tool would.
    """
    return _count_words(text), text.count("\n") + 1
