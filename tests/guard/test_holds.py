import pytest

from webapp.guard.holds import Fence, code_lines, escape_openings, mask_code, unfinished_start, word_end


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Hello world", None),
        ("See ![x](https://a.example.com/x ", 4),  # destination not closed
        ("See [a [nested] text ", 4),  # outermost bracket
        ("See [a](b) and [c](d) ", None),
        ("Refs:\n[q]:\n", 6),  # definition waiting for its destination on the next line
        ("Refs:\n[q]:\n//x.example.com\n", None),
        ('Intro <img src="a b" ', 6),  # tag not closed
        ('Intro <img alt="a>b" ', 6),  # ">" inside quotes does not close it
        ('Intro <img alt="a>b"> ', None),
        ("if a < b then ", None),  # "< b" is not a tag
        ("x <!-- note ", 2),
        ("x <!-- note --> y ", None),
        ("a \\<img src ", None),  # escaped
        ("a \\\\<img src ", 4),  # an escaped backslash, then a real tag
        ("[link text\n\nnew paragraph ", None),  # a blank line ends the paragraph
        ("see [x](<//a b> ", 4),
        ("see [x](<//a b>) ", None),
    ],
)
def test_unfinished_start(text, expected):
    assert unfinished_start(mask_code(text, Fence())) == expected


def test_code_is_masked_so_nothing_in_it_is_held():
    text = "```\nfor (i<n) a[i\n```\nand `x<y` then <b "
    masked = mask_code(text, Fence())
    assert len(masked) == len(text)
    assert unfinished_start(masked) == text.index("<b")
    assert unfinished_start(mask_code("i<n; a[i ", Fence("```"))) is None  # starts inside a fence


def test_fence_state_follows_open_and_close():
    assert Fence().after("```python\nx = 1").marker == "```"
    assert Fence("```").after("x\n```").marker == ""
    assert Fence("````").after("```").marker == "````"  # a shorter fence does not close it
    assert Fence("~~~").after("```").marker == "~~~"


def test_word_end_and_escape():
    assert word_end("one two thr") == 8
    assert word_end("partial") == 0
    text = "a <b ![x `<c` \\[d [e"
    assert escape_openings(text, mask_code(text, Fence()), 2, len(text) - 2) == "a &lt;b !\\[x `<c` \\[d [e"


def test_code_lines_marks_fences_and_what_they_hold_even_left_open():
    text = "Run:\n```bash\nps aux | grep x\n```\nThen:\n~~~\nkill 1"
    assert code_lines(text) == [
        ("Run:", False),
        ("```bash", True),
        ("ps aux | grep x", True),
        ("```", True),
        ("Then:", False),
        ("~~~", True),
        ("kill 1", True),
    ]
