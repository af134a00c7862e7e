DEFAULTS = {
    "retries": 3,
    "timeout": 45,
    "verbose": False,
}
