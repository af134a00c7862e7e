"""Simple text statistics using integer arithmetic only."""

VOWELS = "aeiouy"


def split_words(text):
    """Return the words of ``text``: runs of letters/digits with inner apostrophes."""
    words = []
    current = []
    for ch in text:
        if ch.isalnum() or (ch == "'" and current):
            current.append(ch)
        elif current:
            words.append("".join(current).rstrip("'"))
            current = []
    if current:
        words.append("".join(current).rstrip("'"))
    return words


def count_syllables(word):
    """Estimate syllables: vowel groups, minus a silent final 'e', at least 1."""
    word = word.lower()
    count = 0
    previous_vowel = False
    for ch in word:
        is_vowel = ch in VOWELS
        if is_vowel and not previous_vowel:
            count += 1
        previous_vowel = is_vowel
    if word.endswith("e") and not word.endswith("le"):
        count -= 1
    return max(count, 1)


def _count_alnum(text):
    total = 0
    for ch in text:
        if ch.isalnum():
            total += 1
    return total


def split_sentences(text, terminators=".!?"):
    """Split after each terminator; pieces without any word are dropped."""
    sentences = []
    current = []
    for ch in text:
        current.append(ch)
        if ch in terminators:
            sentence = "".join(current).strip()
            current = []
            if _count_alnum(sentence) > 0:
                sentences.append(sentence)
    rest = "".join(current).strip()
    if _count_alnum(rest) > 0:
        sentences.append(rest)
    return sentences


def word_counts(text, min_length=1, ignore_case=True):
    if min_length < 1:
        raise ValueError("min_length must be at least 1")
    counts = {}
    for word in split_words(text):
        if len(word) < min_length:
            continue
        if ignore_case:
            word = word.lower()
        counts[word] = counts.get(word, 0) + 1
    return counts


def top_words(text, n=3, min_length=1):
    """The ``n`` most frequent words as (word, count), ties alphabetical."""
    if n < 1:
        raise ValueError("n must be at least 1")
    counts = word_counts(text, min_length=min_length)
    ranked = sorted(counts.items(), key=lambda item: (-item[1], item[0]))
    return ranked[:n]


def readability(text, scale=1):
    """Flesch reading ease times ``scale``, rounded half up to an integer.

    206.835 - 1.015 * words/sentences - 84.6 * syllables/words, computed
    exactly with integers.
    """
    if scale < 1:
        raise ValueError("scale must be at least 1")
    words = split_words(text)
    sentences = len(split_sentences(text))
    if not words:
        raise ValueError("text has no words")
    count = len(words)
    syllables = 0
    for word in words:
        syllables += count_syllables(word)
    numerator = (206835 * sentences * count - 1015 * count * count
                 - 84600 * syllables * sentences) * scale
    denominator = 1000 * sentences * count
    return (2 * numerator + denominator) // (2 * denominator)


def grade_label(score):
    """Describe an (unscaled) readability score."""
    if score >= 90:
        return "very easy"
    if score >= 70:
        return "easy"
    if score >= 50:
        return "standard"
    if score >= 30:
        return "difficult"
    return "very difficult"


def average_word_length(text, scale=1):
    """Mean letters/digits per word (apostrophes ignored) times ``scale``, rounded down."""
    words = split_words(text)
    if not words:
        return 0
    letters = 0
    for word in words:
        letters += _count_alnum(word)
    return letters * scale // len(words)
