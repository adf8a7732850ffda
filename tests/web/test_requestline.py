"""The authority an absolute-form request target names (what replaces its Host header)."""

from __future__ import annotations

import pytest

from webapp.web.headerdeadline import HeaderDeadline
from webapp.web.requestline import _with_deadline, http_protocol, target_authority


@pytest.mark.parametrize(
    "target, authority",
    [
        (b"/", None),
        (b"/v1/models?x=http://a", None),
        (b"*", None),
        (b"http://attacker.example/", b"attacker.example"),
        (b"HTTP://Attacker.example:7860/x", b"Attacker.example:7860"),
        (b"http://127.0.0.1@attacker.example/", b"attacker.example"),  # userinfo is not the host
        (b"http://attacker.example@127.0.0.1:7860/", b"127.0.0.1:7860"),
        (b"http:///x", b""),  # an absolute target with no host names the empty one (421 on loopback)
    ],
)
def test_the_target_authority(target: bytes, authority: bytes | None) -> None:
    assert target_authority(target) == authority


def test_the_server_uses_the_protocol_that_reads_it() -> None:
    protocol = http_protocol()
    assert protocol == "h11" or protocol.__name__ == "AbsoluteTargetProtocol"
    timed = http_protocol(header_timeout_s=3.0)
    assert issubclass(timed, HeaderDeadline) and timed.header_timeout_s == 3.0
    assert protocol == "h11" or timed.__name__ == "AbsoluteTargetProtocol"


def test_the_h11_fallback_gets_the_header_deadline_too() -> None:
    from uvicorn.protocols.http.h11_impl import H11Protocol

    timed = _with_deadline("h11", 2.0)
    assert issubclass(timed, HeaderDeadline) and issubclass(timed, H11Protocol)
