def span(xs):
    return {'low': min(xs), 'high': max(xs)}
