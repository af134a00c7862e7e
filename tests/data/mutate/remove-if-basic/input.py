def handle(request):
    if request is None:
        raise ValueError("no request")
    if request.cached:
        return request.cache
    elif request.stale:
        request.refresh()
    return request.body


if __name__ == "__main__":
    handle(None)
