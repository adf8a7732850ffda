"""The load benchmark's answers: a new one per turn, the same for client and upstream, the length asked for."""

from bench.answers import answer_text, answer_words, question, request_number


def test_every_turn_gets_its_own_answer_of_the_asked_length() -> None:
    answers = [answer_words("distinct", 64, n) for n in range(1, 201)]
    assert all(len(words) == 64 and all(w.endswith(" ") for w in words) for words in answers)
    assert len({"".join(words) for words in answers}) == 200
    sentences = [s for words in answers for s in "".join(words).split(". ")]
    assert len(set(sentences)) > 0.95 * len(sentences)  # a guard's caches barely ever see one again


def test_the_upstream_finds_the_answer_the_question_names() -> None:
    body = f'{{"messages": [{{"role": "user", "content": "{question(1234)}"}}]}}'.encode()
    assert request_number(body) == 1234
    assert answer_text("distinct", 64, 1234) == answer_text("distinct", 64, request_number(body))


def test_the_repeated_answer_is_the_same_every_turn() -> None:
    assert answer_text("repeat", 64, 1) == answer_text("repeat", 64, 2)
    assert answer_text("distinct", 64, 1) != answer_text("distinct", 64, 2)
