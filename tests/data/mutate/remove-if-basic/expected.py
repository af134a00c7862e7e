def handle(request):
    if request.cached:
        return request.cache
    elif request.stale:
        request.refresh()
    return request.body


if __name__ == "__main__":
    handle(None)
