import pytest


@pytest.fixture
def two():
    return 2


@pytest.fixture
def three():
    return 3
