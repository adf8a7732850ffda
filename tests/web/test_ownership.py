"""Signed browser ids: forged ones are refused, and every id ends at its lifetime (a clock is injected)."""

from __future__ import annotations

import hashlib
import hmac

import pytest

from webapp.web.ownership import OwnerIds

DAY = 24 * 3600.0


class Clock:
    def __init__(self, now: float = 1_800_000_000.0) -> None:
        self.now = now

    def __call__(self) -> float:
        return self.now


def test_an_id_lives_as_long_as_its_lifetime_and_no_longer() -> None:
    clock = Clock()
    ids = OwnerIds("secret", lifetime_s=30 * DAY, clock=clock)
    browser, cookie = ids.issue()
    assert ids.verify(cookie) == browser
    clock.now += 30 * DAY - 1
    assert ids.verify(cookie) == browser
    clock.now += 1
    assert ids.verify(cookie) is None
    fresh, fresh_cookie = ids.issue()
    assert fresh != browser and ids.verify(fresh_cookie) == fresh


def test_the_issue_time_is_under_the_signature() -> None:
    clock = Clock()
    ids = OwnerIds("secret", lifetime_s=DAY, clock=clock)
    browser, cookie = ids.issue()
    _, issued, signature = cookie.split(".")
    clock.now += 2 * DAY
    assert ids.verify(cookie) is None
    assert (
        ids.verify(f"{browser}.{int(clock.now)}.{signature}") is None
    )  # a renewed date needs a new signature


@pytest.mark.parametrize(
    "value",
    [
        None,
        "",
        "abc",
        "abc.123",
        "abc..sig",
        ".123.sig",
        "abc.١٢٣.sig",  # digits of another script: int() reads them, the signature covers the text
        "abc.123.sig.extra",
    ],
)
def test_malformed_values_are_refused(value: str | None) -> None:
    assert OwnerIds("secret", lifetime_s=DAY).verify(value) is None


def test_values_of_the_earlier_format_count_as_expired() -> None:
    """`id.signature`, signed over the id alone, had no issue time: nothing would ever end it."""
    key = hashlib.sha256(b"railchat visitor id\0secret").digest()
    legacy = "someid." + hmac.new(key, b"someid", hashlib.sha256).hexdigest()[:32]
    assert OwnerIds("secret", lifetime_s=365 * DAY).verify(legacy) is None


def test_a_date_from_the_future_is_refused_beyond_a_minute_of_skew() -> None:
    clock = Clock()
    ids = OwnerIds("secret", lifetime_s=DAY, clock=clock)
    browser, cookie = ids.issue()
    clock.now -= 59
    assert ids.verify(cookie) == browser
    clock.now -= 2
    assert ids.verify(cookie) is None
