import pytest

from tests.support.moderation import default_moderator
from webapp.guard.moderation import Moderator


@pytest.fixture(scope="session")
def moderator() -> Moderator:
    return default_moderator()
