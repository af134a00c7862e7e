class Model:
    def update(self, data, data_value=None):
        self.data = data or data_value

    def reload(self, path, mode):
        global path
        return path

    def close(self, handle_value, flag):
        try:
            handle_value.close()
        except OSError as flag:
            pass
        return flag

    def noop(self, unused):
        return self
