DEFAULTS = {
    "verbose": False,
    "retries": 3,
    "timeout": 45,
}
