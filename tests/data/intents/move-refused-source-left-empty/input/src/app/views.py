def show(text):
    return f"<{text}>"
