class Client:
    def get(self, path, timeout=10):
        def helper(flag=False):
            return flag
        return helper()
