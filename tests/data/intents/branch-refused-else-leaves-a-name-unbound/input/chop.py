def chop(text, step):
    if step <= 0:
        chopped = [text]
    else:
        chopped = [text[i:i + step] for i in range(0, len(text), step)]
    return chopped
