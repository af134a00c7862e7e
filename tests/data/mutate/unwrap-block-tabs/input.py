def read(path):
	with open(path) as f:
		if f:
			return f.read()
	return None
