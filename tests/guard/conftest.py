import pytest

from tests.support.moderation import default_moderator
from webapp.guard.checks import RailChecks
from webapp.guard.moderation import Moderator
from webapp.guard.urlpolicy import UrlPolicy


@pytest.fixture(scope="session")
def moderator() -> Moderator:
    return default_moderator()


@pytest.fixture(scope="session")
def checks(moderator: Moderator) -> RailChecks:
    """The default moderation behind rail checks with no URL allowlist: what judges a streamed answer."""
    return RailChecks(UrlPolicy([]), moderator)
