DEFAULTS = {
    "retries": 3,
    "timeout": 30,
    "timeout": 60,
    "verbose": False,
}
