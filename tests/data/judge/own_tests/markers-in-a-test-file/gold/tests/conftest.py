import pytest


@pytest.fixture
def two():
    return 2
