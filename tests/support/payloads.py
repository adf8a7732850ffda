"""Attack payloads kept as data (``tests/guard/side_door_payloads.yml``), read and checked for the tests.

One entry per payload: its text, the class of attack, the verdict it must get, how it is checked (whole,
and/or streamed word by word on both channels) and, while the verdict is still wrong, the reason for its
strict xfail. The file is read strictly: a key written twice, an unknown field or a payload listed twice is
an error, so a typo cannot quietly turn an entry into a test of nothing.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

import pytest

from webapp.guard.yamlfile import load_yaml

Verdict = Literal["block", "pass"]
Check = Literal["whole", "whole+streamed", "streamed"]
_FIELDS = {"text", "class", "verdict", "check", "xfail", "found"}


@dataclass(frozen=True)
class Payload:
    text: str
    kind: str  # "class" in the file
    verdict: Verdict
    check: Check
    xfail: str | None = None
    found: str | None = None

    @property
    def whole(self) -> bool:
        return self.check != "streamed"

    @property
    def streamed(self) -> bool:
        return self.check != "whole"

    def param(self) -> Any:
        """The text as a pytest parameter (its id the text, as when the lists were Python), strict xfail
        while the verdict is still wrong."""
        marks = [pytest.mark.xfail(strict=True, reason=self.xfail)] if self.xfail else []
        return pytest.param(self.text, marks=marks)

    @classmethod
    def from_entry(cls, entry: Any, where: str) -> Payload:
        if not isinstance(entry, dict) or not {"text", "class", "verdict", "check"} <= entry.keys():
            raise ValueError(f"{where}: an entry needs text, class, verdict and check: {entry!r}")
        if unknown := entry.keys() - _FIELDS:
            raise ValueError(f"{where}: unknown fields {sorted(unknown)} in {entry!r}")
        if entry["verdict"] not in ("block", "pass") or entry["check"] not in (
            "whole",
            "whole+streamed",
            "streamed",
        ):
            raise ValueError(
                f"{where}: verdict must be block|pass and check whole|whole+streamed|streamed: {entry!r}"
            )
        if "xfail" in entry and not str(entry["xfail"]).strip():
            raise ValueError(f"{where}: an xfail needs its reason: {entry!r}")
        return cls(
            str(entry["text"]),
            str(entry["class"]),
            entry["verdict"],
            entry["check"],
            entry.get("xfail"),
            entry.get("found"),
        )


def load_payloads(path: Path) -> list[Payload]:
    entries = load_yaml(path)
    payloads = [Payload.from_entry(entry, f"{path} entry {n}") for n, entry in enumerate(entries, 1)]
    seen: set[str] = set()
    for payload in payloads:
        if payload.text in seen:
            raise ValueError(f"{path}: the payload {payload.text!r} is listed twice")
        seen.add(payload.text)
    return payloads
