def span_of(line, word):
    start = line.find(word)
    end = start + len(word)
    return start, end


def width(line, word):
    start, end = span_of(line, word)
    return end - start
