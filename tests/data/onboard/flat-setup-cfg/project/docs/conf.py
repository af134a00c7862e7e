project = "shapes"
