class Router:
    def __init__(self, routes):
        self.routes = routes

    def resolve(self, url):
        path = url.split("?", 1)[0]
        segments = [s for s in path.split("/") if s]
        if segments and segments[-1] == "index":
            segments.pop()
        # Longest prefix first.
        for size in range(len(segments), -1, -1):
            key = "/" + "/".join(segments[:size])
            if key in self.routes:
                return self.routes[key]
        raise KeyError(url)
