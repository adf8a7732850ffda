"""The moderator's memories stay within their entries and their bytes, least recently used out first, and
remember a sentence's verdict without the sentences around it where no tier reads them."""

from __future__ import annotations

from webapp.guard.moderation import ModerationConfig, Moderator
from webapp.guard.moderation.memo import ENTRY_OVERHEAD, Memo, memo_sizes, text_bytes


def _memo(max_entries: int = 3, max_bytes: int = 10**6) -> Memo[str, int | None]:
    return Memo("test", max_entries=max_entries, max_bytes=max_bytes, size_of=lambda k, v: text_bytes(k))


def test_the_least_recently_used_goes_first_when_full() -> None:
    memo = _memo()
    for key in ("a", "b", "c"):
        memo.put(key, 1)
    assert memo.get("a") == (True, 1)  # now the most recent
    memo.put("d", 1)
    assert "b" not in memo and all(k in memo for k in ("a", "c", "d"))
    assert len(memo) == 3


def test_a_remembered_none_is_a_hit() -> None:
    memo = _memo()
    memo.put("a", None)
    assert memo.get("a") == (True, None)
    assert memo.get("b") == (False, None)


def test_bytes_are_bounded_and_counted_back_on_eviction() -> None:
    long_text = "x" * 5000
    per_entry = text_bytes(long_text + "1") + ENTRY_OVERHEAD
    memo = _memo(max_entries=100, max_bytes=3 * per_entry)
    for n in range(10):
        memo.put(long_text + str(n), n)
    size = memo.size()
    assert size.entries == 3 and size.bytes == 3 * per_entry <= size.max_bytes
    memo.put(long_text + "9", 9)  # replacing an entry does not count it twice
    assert memo.size().bytes == 3 * per_entry


def test_live_memos_are_listed() -> None:
    memo = _memo()
    memo.put("a", 1)
    assert any(s.name == "test" and s.entries == 1 for s in memo_sizes())


def _rules_only() -> Moderator:
    """One rule and no other tier: the verdicts it remembers are its rules'."""
    rule = {"name": "hate", "reason": "no", "patterns": [r"\bvermin\b"]}
    return Moderator(ModerationConfig.from_mapping({"categories": [rule], "profanity": {"enabled": False}}))


def _verdicts_held() -> int:
    return sum(s.entries for s in memo_sizes() if s.name == "verdicts")


def test_a_sentence_is_judged_once_while_the_one_after_it_grows() -> None:
    moderator = _rules_only()
    moderator.check("The river runs past the mill. The herons", "output", partial=True)
    held = _verdicts_held()
    moderator.check("The river runs past the mill. The herons wait in", "output", partial=True)
    assert _verdicts_held() == held + 1  # the growing sentence only


def test_a_quoting_sentence_is_judged_again_with_the_sentences_after_it() -> None:
    # counter-speech may read them: '"X are vermin" he said to us. I was appalled.'
    moderator = _rules_only()
    moderator.check('He said "the mill is old" to us. The herons', "output", partial=True)
    held = _verdicts_held()
    moderator.check('He said "the mill is old" to us. The herons wait in', "output", partial=True)
    assert _verdicts_held() == held + 2
