"""Claims a text makes across two sentences ("X were gassed." + "Good times."): neither sentence says it alone,
so the context rules read the pair as the one claim it makes and judge that (rules as data: the config's
``context.sequels``)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from webapp.guard.moderation.caseless import CaselessPattern
from webapp.guard.moderation.lexicon import caseless
from webapp.guard.moderation.text import Unit


@dataclass(frozen=True)
class Sequel:
    """A claim a text makes across two sentences: ``first`` names the group, ``then`` (in the rest of that
    sentence or as the next sentence; a regex or a list of them) says the rest, and together they are
    ``claim``, written with the named groups of both ("X were gassed." + "Good times." -> "X deserved to be
    gassed.")."""

    first: CaselessPattern
    then: CaselessPattern
    claim: str

    @classmethod
    def from_mapping(cls, data: Mapping[str, Any], lexicon: Mapping[str, str]) -> Sequel:
        then = data["then"] if isinstance(data["then"], list) else [data["then"]]
        alternatives = "|".join(f"(?:{p})" for p in then)
        return cls(caseless(str(data["first"]), lexicon), caseless(alternatives, lexicon), str(data["claim"]))

    def claims(self, unit: Unit, after: Unit | None) -> list[str]:
        claims = []
        for first in self.first.finditer(unit.text):
            then = self.then.search(unit.text[first.end() :]) or (after and self.then.search(after.plain))
            if then:
                claims.append(self.claim.format(**first.groupdict(), **then.groupdict()))
        return claims
