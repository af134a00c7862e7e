def read(path):
	if f:
		return f.read()
	return None
