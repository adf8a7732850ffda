"""The upload quota's bookkeeping (the HTTP side: tests/web/test_upload_quota.py)."""

import pytest

from webapp.web import uploadquota
from webapp.web.uploadquota import QuotaLimits, UploadQuota, wait_text

LIMITS = QuotaLimits(window_s=100.0, bytes_per_window=1000, files_per_window=3, folder_bytes=5000)


class Clock:
    now = 0.0

    def __call__(self) -> float:
        return self.now


def test_an_owner_is_forgotten_once_its_window_passed() -> None:
    clock = Clock()
    quota = UploadQuota(LIMITS, clock=clock)
    assert quota.admit("a", 600) is None
    refusal = quota.admit("a", 600)
    assert refusal is not None and refusal[1] == 100 and "1,000 bytes" in refusal[0]
    clock.now = 100.0
    assert quota.admit("b", 10) is None  # expires a's entry on the way
    assert "a" not in quota._bytes and "a" not in quota._files  # memory follows the window
    assert quota.admit("a", 600) is None


def test_a_request_larger_than_the_quota_alone_is_refused() -> None:
    refusal = UploadQuota(LIMITS, clock=Clock()).admit("a", 1001)
    assert refusal is not None and refusal[1] == 100


def test_the_folder_cap_counts_what_was_admitted_since_the_last_sweep() -> None:
    quota = UploadQuota(LIMITS, clock=Clock())
    quota.swept(4000)
    assert quota.admit("a", 900) is None
    assert quota.admit("b", 200) is not None  # 4000 + 900 + 200 > 5000, though b never uploaded
    quota.swept(4500)  # what stays after the sweep (the 900 bytes among it)
    assert quota.admit("b", 400) is None


def test_the_entries_of_one_window_are_capped(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(uploadquota, "MAX_ENTRIES", 3)
    quota = UploadQuota(QuotaLimits(100.0, 10**9, 10**9, 10**12), clock=Clock())
    assert [quota.admit(f"owner-{i}", 1) is None for i in range(4)] == [True, True, True, False]


def test_a_wait_reads_in_the_unit_a_person_would_use_rounded_up() -> None:
    waits = {1: "1 s", 59: "59 s", 60: "1 min", 61: "2 min", 3599: "60 min", 7199: "120 min", 7201: "3 h"}
    assert {s: wait_text(s) for s in waits} == waits
