"""Only the tab that joined an event may cancel it (the HTTP side: tests/web/test_tab_binding.py)."""

from webapp.web.eventledger import EventLedger


def test_only_the_joining_tab_holds_an_event() -> None:
    ledger = EventLedger()
    ledger.record("e1", "tab-a")
    assert ledger.joined("e1", "tab-a")
    assert not ledger.joined("e1", "tab-b")
    assert not ledger.joined("e2", "tab-a")
    assert not ledger.joined(["e1"], "tab-a") and not ledger.joined("e1", None)


def test_the_oldest_events_are_forgotten_past_the_cap() -> None:
    ledger = EventLedger(max_events=2)
    for event in ("e1", "e2", "e3"):
        ledger.record(event, "tab-a")
    assert [ledger.joined(e, "tab-a") for e in ("e1", "e2", "e3")] == [False, True, True]


def test_what_a_join_did_not_answer_is_not_recorded() -> None:
    ledger = EventLedger()
    ledger.record(None, "tab-a")
    ledger.record("e1", None)
    assert not ledger.joined("e1", "tab-a")
