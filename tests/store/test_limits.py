"""Demo limits in the database: a sliding minute per visitor, invite quotas, global turn slots."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from webapp.store import Store, invites, limits

T0 = datetime(2026, 11, 30, 12, 0, tzinfo=UTC)
TTL = timedelta(minutes=5)


def admit(store: Store, visitor: str, at: datetime, *, per_minute: int = 2, required: bool = False):
    return limits.admit_message(store, visitor, per_minute=per_minute, invite_required=required, now=at)


def test_per_minute_is_a_sliding_window_per_visitor(store: Store) -> None:
    assert admit(store, "browser:a", T0) is None
    assert admit(store, "browser:a", T0 + timedelta(seconds=20)) is None
    refused = admit(store, "browser:a", T0 + timedelta(seconds=30))
    assert refused is not None and refused.code == "rate_limited" and refused.retry_after_s == 30
    assert "Try again in 30 s" in refused.message
    assert admit(store, "browser:b", T0 + timedelta(seconds=30)) is None  # others are not affected
    assert admit(store, "browser:a", T0 + timedelta(seconds=60)) is None  # the first one left the window
    assert admit(store, "browser:a", T0 + timedelta(seconds=61)).retry_after_s == 19  # type: ignore[union-attr]


def test_limits_hold_across_store_instances(sqlite_url: str) -> None:
    first, second = Store(sqlite_url), Store(sqlite_url)  # two app replicas on one database
    assert admit(first, "browser:a", T0, per_minute=1) is None
    assert admit(second, "browser:a", T0 + timedelta(seconds=1), per_minute=1) is not None


def test_invite_quota_counts_every_visitor_of_the_link(store: Store) -> None:
    token, invite = invites.create_invite(store, hours=1, messages=3, now=T0)
    for visitor in ("browser:a", "browser:b"):
        assert invites.admit_visitor(store, visitor, token, now=T0) is not None
    at = T0 + timedelta(minutes=1)
    assert [admit(store, v, at, per_minute=10) for v in ("browser:a", "browser:b", "browser:a")] == [None] * 3
    refused = admit(store, "browser:b", at, per_minute=10)
    assert refused is not None and refused.code == "quota_exhausted" and refused.retry_after_s is None
    assert invites.list_invites(store)[0].messages_used == 3
    assert invites.list_invites(store)[0].state(at) == "used up"
    del invite


def test_invite_required_expired_and_revoked(store: Store) -> None:
    refused = admit(store, "browser:nobody", T0, required=True)
    assert refused is not None and refused.code == "invite_invalid"
    token, _ = invites.create_invite(store, hours=1, messages=10, now=T0)
    invites.admit_visitor(store, "browser:a", token, now=T0)
    assert admit(store, "browser:a", T0, required=True) is None
    expired = admit(store, "browser:a", T0 + timedelta(hours=1), required=True)
    assert expired is not None and "expired" in expired.message
    assert invites.revoke_invite(store, token, now=T0)
    revoked = admit(store, "browser:a", T0 + timedelta(seconds=1), required=True)
    assert revoked is not None and "revoked" in revoked.message


def test_invites_are_stored_hashed_and_revocable_by_id(store: Store) -> None:
    token, invite = invites.create_invite(store, hours=2, messages=5, note="workshop", now=T0)
    with store.engine.connect() as conn:
        dump = " ".join(str(row) for row in conn.exec_driver_sql("SELECT * FROM invites"))
    assert token not in dump and invite.id in dump
    assert invites.find_invite(store, token) == invite
    assert invites.find_invite(store, token + "x") is None
    assert invites.admit_visitor(store, "browser:a", "forged", now=T0) is None
    assert invites.revoke_invite(store, invite.id)
    assert invites.revoke_invite(store, invite.id)  # again: still known, still revoked
    assert not invites.revoke_invite(store, "no-such")
    assert invites.find_invite(store, token).state(T0) == "revoked"  # type: ignore[union-attr]


def take(store: Store, visitor: str, at: datetime = T0) -> limits.Slot | limits.Refusal:
    return limits.take_slot(store, visitor, concurrent=2, queue=1, ttl=TTL, now=at)


def test_slots_run_then_queue_then_refuse(store: Store) -> None:
    a, b, c = take(store, "a"), take(store, "b"), take(store, "c")
    assert isinstance(a, limits.Slot) and a.running and isinstance(b, limits.Slot) and b.running
    assert isinstance(c, limits.Slot) and not c.running
    refused = take(store, "d")
    assert isinstance(refused, limits.Refusal) and refused.code == "busy" and refused.retry_after_s
    assert limits.try_start(store, c.id, concurrent=2, ttl=TTL, now=T0) is False
    limits.release_slot(store, a.id)
    assert limits.try_start(store, c.id, concurrent=2, ttl=TTL, now=T0) is True


def test_a_dead_replicas_slots_expire(store: Store) -> None:
    take(store, "a"), take(store, "b")
    later = T0 + TTL + timedelta(seconds=1)
    fresh = take(store, "c", later)
    assert isinstance(fresh, limits.Slot) and fresh.running
    waiting = take(store, "d", T0)
    assert isinstance(waiting, limits.Slot)
    assert limits.try_start(store, waiting.id, concurrent=2, ttl=TTL, now=T0 + 3 * TTL) is None
