"""What the load benchmark's upstream answers: a new answer every turn, or one answer repeated.

A guard's cost depends on whether it has seen the text before: moderation remembers the verdict and the
embedding of every sentence it judged, so an answer repeated turn after turn is judged almost for free after
its first turn, and a real model never repeats itself like that. ``distinct`` (the default) gives turn ``n``
its own answer, drawn from a seeded generator of harmless travel-guide prose (sentences of 10-25 words, as
a model writes, from templates with many fillers: about a billion different sentences, so a run of
thousands of turns barely repeats one). ``repeat`` is the earlier workload (one text about Paris for every
turn), kept to compare with earlier runs and to show what the caches save; reports label which one ran.

Both sides compute an answer from its number alone: the client puts ``(request N)`` in its question, the
upstream answers with ``answer_words(mode, chunks, N)`` and the client checks the text it got against it.
"""

from __future__ import annotations

import random
import re

MODES = ("distinct", "repeat")
SEED = 20261201
REQUEST = re.compile(rb"\(request (\d+)\)")

PARIS = (  # the ``repeat`` answer: plain prose in sentences of ~10-15 words
    "Paris is the capital of France and sits on both banks of the Seine. Its bridges, old and new, "
    "cross a river that has carried boats for two thousand years. Markets, cafes and museums fill the "
    "streets with people who come to read, walk and eat. In the evening the lamps come on along the quays, "
    "and the city keeps talking into the night."
).split()

_FILLERS = {
    "place": (
        "the old harbour",
        "the river market",
        "the hill park",
        "the botanical garden",
        "the city library",
        "the main station",
        "the castle ruins",
        "the north beach",
        "the art museum",
        "the covered market",
        "the stone bridge",
        "the lighthouse",
        "the university quarter",
        "the flower market",
        "the observatory",
        "the lakeside path",
        "the cathedral square",
        "the fish market",
        "the town hall",
        "the old mill",
    ),
    "town": (
        "Lyon",
        "Porto",
        "Bergen",
        "Ghent",
        "Krakow",
        "Seville",
        "Salzburg",
        "Turku",
        "Galway",
        "Bologna",
        "Utrecht",
        "Tallinn",
        "Ljubljana",
        "Bruges",
        "Valencia",
        "Lucerne",
        "Aarhus",
        "Graz",
        "Nantes",
        "Split",
    ),
    "time": (
        "in the early morning",
        "on Sunday afternoons",
        "after the summer rain",
        "in late autumn",
        "on weekday evenings",
        "during the spring festival",
        "before the shops open",
        "at sunset",
        "in the first week of May",
        "on clear winter days",
        "around midday",
        "on market days",
    ),
    "activity": (
        "walk along the water",
        "buy fresh bread",
        "read in the shade",
        "sketch the old roofs",
        "watch the boats come in",
        "try the local cheese",
        "listen to street musicians",
        "rent a bicycle",
        "visit the small galleries",
        "climb the tower for the view",
        "feed the ducks",
        "play chess",
        "look for old postcards",
        "take photographs of the gardens",
    ),
    "food": (
        "warm pastries",
        "grilled fish",
        "a bowl of vegetable soup",
        "fresh strawberries",
        "roasted chestnuts",
        "a slice of apple cake",
        "spiced tea",
        "a plate of olives",
        "hot chocolate",
        "lemon tart",
        "almond biscuits",
        "a simple omelette",
        "fresh pasta",
        "honey from nearby farms",
    ),
    "adjective": (
        "quiet",
        "busy",
        "friendly",
        "colourful",
        "peaceful",
        "lively",
        "charming",
        "spacious",
        "sunny",
        "pleasant",
        "green",
        "welcoming",
    ),
    "number": ("two", "three", "four", "five", "six", "seven", "eight", "ten", "twelve", "fifteen", "twenty"),
    "thing": (
        "a small fountain",
        "a row of plane trees",
        "an old clock tower",
        "a wooden pier",
        "a garden of roses",
        "a tiled courtyard",
        "a narrow staircase",
        "a painted ceiling",
        "a long glass roof",
        "a quiet reading room",
        "a carved stone gate",
        "a bandstand",
    ),
    "people": (
        "families",
        "students",
        "visitors",
        "local painters",
        "cyclists",
        "older couples",
        "school groups",
        "photographers",
        "runners",
        "musicians",
        "tourists",
        "neighbours",
    ),
}

_TEMPLATES = (
    "{place} in {town} is {adjective} {time}, when {people} come to {activity}.",
    "Many {people} like to {activity} near {place}, and the cafes nearby serve {food}.",
    "It takes about {number} minutes to walk from {place} to {place2}.",
    "Look out for {thing} beside {place}, which was restored {number} years ago.",
    "If you have a free hour {time}, {activity} and then try {food}.",
    "The guided tour of {place} lasts {number} hours and starts at the main gate.",
    "Tickets are cheaper {time}, and children under {number} go in for free.",
    "{town} is easy to explore on foot, and most sights lie within {number} kilometres of {place}.",
    "Locals recommend {food} from the stalls near {place}, especially {time}.",
    "The best view of {town} is from {place}, which is {adjective} {time}.",
    "Bring a light jacket, because the wind by {place} can be cool {time}.",
    "In {town}, {people} often gather at {place} {time} to {activity}.",
    "A short tram ride takes you from {place} to {place2} in under {number} minutes.",
    "The {adjective} streets around {place} are full of small shops selling maps, books and {food}.",
    "You will find {thing} in {place}, a good spot to rest before you {activity}.",
    "Most {people} spend {number} days in {town}, which is enough to see {place} and {place2}.",
)


def answer_words(mode: str, chunks: int, n: int) -> list[str]:
    """The deltas of answer ``n``: ``chunks`` words, each followed by a space (the last one too)."""
    if mode == "repeat":
        return [PARIS[i % len(PARIS)] + " " for i in range(chunks)]
    if mode != "distinct":
        raise ValueError(f"answers must be one of {', '.join(MODES)}, not {mode!r}")
    rng = random.Random(SEED * 1_000_003 + n)
    words: list[str] = []
    while len(words) < chunks:
        words += _sentence(rng).split()
    return [w + " " for w in words[:chunks]]


def answer_text(mode: str, chunks: int, n: int) -> str:
    return "".join(answer_words(mode, chunks, n))


def _sentence(rng: random.Random) -> str:
    values = {name: rng.choice(options) for name, options in _FILLERS.items()}
    values["place2"] = rng.choice([p for p in _FILLERS["place"] if p != values["place"]])
    sentence = rng.choice(_TEMPLATES).format(**values)
    return sentence[0].upper() + sentence[1:]


def question(n: int) -> str:
    """The user's message for turn ``n``: it names the answer the upstream is to give."""
    return f"Tell me about a city worth a weekend, briefly (request {n})."


def request_number(body: bytes) -> int:
    """The answer a request asks for: the last ``(request N)`` in it (0 if none)."""
    found = REQUEST.findall(body)
    return int(found[-1]) if found else 0
