from setuptools import setup

setup(
    name="timekit",
    install_requires=["pytz"],
    extras_require={"testing": ["pytest-timeout", "mock; python_version < '3.3'"], "docs": ["sphinx"]},
)
