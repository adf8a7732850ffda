"""fetch_image: allowlist per hop, address vetting, pinning, size and time limits.

Loopback is refused by design, so no local server: an injected resolver plus httpx.MockTransport, and
for the pinned connection path a fake network backend that speaks HTTP/1.1 from memory.
"""

from __future__ import annotations

import asyncio
import socket
import typing
from collections.abc import AsyncIterator, Callable

import httpcore
import httpx
import pytest

from webapp.guard.urlpolicy import UrlPolicy
from webapp.media.fetch import MAX_REDIRECTS, PinnedBackend, fetch_image, is_public_address
from webapp.media.images import ImageError

PUBLIC_IP = "93.184.215.14"
IMAGE = b"\x89PNG\r\n\x1a\n" + b"pretend-png" * 10
ALLOWED_HOSTS = {"img.example.com", "cdn.example.com"}


def allows(url: str) -> bool:
    return httpx.URL(url).host in ALLOWED_HOSTS


class Resolver:
    """Answers from a table and records what it was asked."""

    def __init__(self, table: dict[str, list[str]] | None = None) -> None:
        self.table = table if table is not None else {host: [PUBLIC_IP] for host in ALLOWED_HOSTS}
        self.asked: list[str] = []

    async def __call__(self, host: str, port: int) -> list[str]:
        self.asked.append(host)
        if host not in self.table:
            raise socket.gaierror(socket.EAI_NONAME, "Name or service not known")
        return self.table[host]


def mock(handler: Callable[[httpx.Request], typing.Any]) -> tuple[httpx.MockTransport, list[httpx.Request]]:
    seen: list[httpx.Request] = []

    async def record(request: httpx.Request) -> httpx.Response:
        seen.append(request)
        response = handler(request)
        return await response if asyncio.iscoroutine(response) else response

    return httpx.MockTransport(record), seen


def serve(
    body: bytes = IMAGE, status: int = 200, **headers: str
) -> Callable[[httpx.Request], httpx.Response]:
    return lambda request: httpx.Response(status, content=body, headers=headers)


async def fetch(
    url: str,
    transport: httpx.AsyncBaseTransport,
    resolver: Resolver | None = None,
    max_bytes: int = 10_000,
    timeout_s: float = 5.0,
    policy: Callable[[str], bool] = allows,
) -> bytes:
    return await fetch_image(
        url,
        allows=policy,
        max_bytes=max_bytes,
        timeout_s=timeout_s,
        resolver=resolver or Resolver(),
        transport=transport,
    )


# ---------------------------------------------------------------- addresses


@pytest.mark.parametrize("address", ["93.184.215.14", "8.8.8.8", "2606:4700:4700::1111"])
def test_public_addresses_pass(address: str) -> None:
    assert is_public_address(address)


@pytest.mark.parametrize(
    "address",
    [
        "127.0.0.1",
        "127.1.2.3",
        "10.0.0.1",
        "172.16.5.4",
        "192.168.1.1",
        "169.254.169.254",
        "100.64.0.1",
        "100.100.100.200",
        "0.0.0.0",
        "224.0.0.1",
        "239.255.255.250",
        "240.0.0.1",
        "255.255.255.255",
        "192.0.2.1",
        "::1",
        "::",
        "fe80::1",
        "fd00::1",
        "fd00:ec2::254",
        "ff02::1",
        "::ffff:127.0.0.1",
        "::ffff:10.0.0.1",
        "64:ff9b::7f00:1",
        "2002:7f00:1::1",
        "2001:db8::1",
        "fec0::1",  # IPv6 site-local (deprecated, still routed inside some networks): judged public before
        "fec0:0:0:ffff::1",
        # special-purpose blocks Python 3.11 still counts as global: judged public before
        "192.0.0.8",  # the IPv4 dummy address
        "192.0.0.9",  # PCP anycast
        "192.0.0.10",  # TURN anycast
        "192.88.99.1",  # 6to4 relay anycast
        "2001::7f00:1",  # Teredo (its client address unmasks to a public one)
        "2001:0:4136:e378:8000:63bf:3fff:fdd2",
        "2001:1::1",  # PCP anycast
        "3fff::1",  # documentation
        "3fff:fff:ffff::1",
        "5f00::1",  # SRv6 segment identifiers
        "not-an-ip",
        "",
    ],
)
def test_internal_addresses_are_refused(address: str) -> None:
    assert not is_public_address(address)


# ---------------------------------------------------------------- the happy path


async def test_fetches_an_allowed_image() -> None:
    transport, seen = mock(serve())
    resolver = Resolver()
    assert await fetch("https://img.example.com/cat.png", transport, resolver) == IMAGE
    assert resolver.asked == ["img.example.com"]
    assert seen[0].headers["accept-encoding"] == "identity"
    assert seen[0].headers["host"] == "img.example.com"


async def test_follows_relative_and_absolute_redirects() -> None:
    def handler(request: httpx.Request) -> httpx.Response:
        if request.url.path == "/a":
            return httpx.Response(302, headers={"location": "/b"})
        if request.url.path == "/b":
            return httpx.Response(301, headers={"location": "https://cdn.example.com/c"})
        return httpx.Response(200, content=IMAGE)

    transport, seen = mock(handler)
    resolver = Resolver()
    assert await fetch("https://img.example.com/a", transport, resolver) == IMAGE
    assert [str(r.url) for r in seen] == [
        "https://img.example.com/a",
        "https://img.example.com/b",
        "https://cdn.example.com/c",
    ]
    assert resolver.asked == ["img.example.com", "img.example.com", "cdn.example.com"]


async def test_exactly_max_redirects_are_followed_and_one_more_is_refused() -> None:
    def chain(length: int) -> Callable[[httpx.Request], httpx.Response]:
        def handler(request: httpx.Request) -> httpx.Response:
            step = int(request.url.path.strip("/") or 0)
            if step < length:
                return httpx.Response(307, headers={"location": f"/{step + 1}"})
            return httpx.Response(200, content=IMAGE)

        return handler

    assert await fetch("https://img.example.com/0", mock(chain(MAX_REDIRECTS))[0]) == IMAGE
    transport, seen = mock(chain(MAX_REDIRECTS + 1))
    with pytest.raises(ImageError) as caught:
        await fetch("https://img.example.com/0", transport)
    assert caught.value.code == "too_many_redirects"
    assert len(seen) == MAX_REDIRECTS + 1


# ---------------------------------------------------------------- refusals


@pytest.mark.parametrize(
    "url",
    [
        "https://evil.example.net/x.png",
        "https://user@img.example.com/x.png",  # userinfo: judged differently by different parsers
        "https://img.example.com\\@evil.example.net/x.png",
        "ftp://img.example.com/x.png",
        "file:///etc/passwd",
        "data:image/png;base64,AAAA",
        "https://img.example.com/a b.png",
        "https:/img.example.com/x.png",
        "javascript:alert(1)",
        # The allowlist reads a host decoded ("img.example.com."), as a browser does; httpx kept it as written
        # and looked up, connected to and named that other host.
        "https://img.example.com%2e/x.png",
        "https://evil.test%2Eimg.example.com/x.png",
        "https://im%67.example.com/",
    ],
)
async def test_refused_urls_are_never_requested(url: str) -> None:
    """Judged by the app's own URL policy, so a spelling it reads differently from httpx cannot slip by."""
    transport, seen = mock(serve())
    resolver = Resolver()
    with pytest.raises(ImageError) as caught:
        await fetch(url, transport, resolver, policy=UrlPolicy(["*.example.com"]).allows)
    assert caught.value.code == "url_not_allowed"
    assert seen == [] and resolver.asked == []


@pytest.mark.parametrize(
    "addresses",
    [
        ["127.0.0.1"],
        ["10.1.2.3"],
        ["169.254.169.254"],
        ["::1"],
        ["::ffff:127.0.0.1"],
        [PUBLIC_IP, "192.168.0.10"],
    ],
)
async def test_hosts_resolving_inward_are_refused(addresses: list[str]) -> None:
    transport, seen = mock(serve())
    with pytest.raises(ImageError) as caught:
        await fetch("https://img.example.com/x.png", transport, Resolver({"img.example.com": addresses}))
    assert caught.value.code == "blocked_address"
    assert "img.example.com" in str(caught.value)
    assert seen == []


async def test_every_redirect_hop_is_checked_against_the_allowlist() -> None:
    transport, seen = mock(lambda r: httpx.Response(302, headers={"location": "https://evil.example.net/x"}))
    with pytest.raises(ImageError) as caught:
        await fetch("https://img.example.com/x.png", transport)
    assert caught.value.code == "url_not_allowed"
    assert [r.url.host for r in seen] == ["img.example.com"]


async def test_every_redirect_hop_is_checked_for_internal_addresses() -> None:
    transport, seen = mock(lambda r: httpx.Response(302, headers={"location": "https://cdn.example.com/x"}))
    resolver = Resolver({"img.example.com": [PUBLIC_IP], "cdn.example.com": ["127.0.0.1"]})
    with pytest.raises(ImageError) as caught:
        await fetch("https://img.example.com/x.png", transport, resolver)
    assert caught.value.code == "blocked_address"
    assert len(seen) == 1


@pytest.mark.parametrize("location", ["http://127.0.0.1/x", "http://[::1]/", "http://169.254.169.254/latest"])
async def test_redirect_to_ip_literal_is_refused(location: str) -> None:
    transport, seen = mock(lambda r: httpx.Response(301, headers={"location": location}))
    with pytest.raises(ImageError) as caught:
        await fetch_image(
            "https://img.example.com/x",
            allows=lambda url: True,
            max_bytes=1000,
            timeout_s=5,
            resolver=Resolver(),
            transport=transport,
        )
    assert caught.value.code == "blocked_address"
    assert len(seen) == 1


# "http:host/x" (a scheme, no "//"): httpx builds the next request of every redirect, even when it follows
# none, and raised InvalidURL out of fetch_image for these, which no caller expects (the turn died with it).
@pytest.mark.parametrize("location", ["http:localhost/x", "https:evil.example.net/x", "http:\\\\127.0.0.1/x"])
async def test_a_redirect_httpx_cannot_parse_is_a_clear_error(location: str) -> None:
    transport, seen = mock(lambda r: httpx.Response(302, headers={"location": location}))
    with pytest.raises(ImageError) as caught:
        await fetch("https://img.example.com/x.png", transport)
    assert caught.value.code == "url_not_allowed"
    assert [r.url.host for r in seen] == ["img.example.com"]


async def test_unknown_host_is_a_clear_error() -> None:
    transport, seen = mock(serve())
    with pytest.raises(ImageError) as caught:
        await fetch("https://img.example.com/x.png", transport, Resolver({}))
    assert caught.value.code == "fetch_failed" and "could not be found" in str(caught.value)
    assert seen == []


@pytest.mark.parametrize("status", [404, 403, 500, 304])
async def test_error_status_is_a_clear_error(status: int) -> None:
    with pytest.raises(ImageError) as caught:
        await fetch("https://img.example.com/x.png", mock(serve(b"nope", status))[0])
    assert caught.value.code == "fetch_failed" and str(status) in str(caught.value)


async def test_compressed_bodies_are_declined() -> None:
    with pytest.raises(ImageError) as caught:
        await fetch("https://img.example.com/x.png", mock(serve(**{"content-encoding": "gzip"}))[0])
    assert caught.value.code == "fetch_failed"


async def test_declared_length_over_the_cap_is_refused_before_reading() -> None:
    with pytest.raises(ImageError) as caught:
        await fetch("https://img.example.com/x.png", mock(serve(b"x" * 20_000))[0], max_bytes=10_000)
    assert caught.value.code == "image_too_large"


async def test_streamed_body_is_abandoned_past_the_cap() -> None:
    produced = 0

    async def endless() -> AsyncIterator[bytes]:
        nonlocal produced
        while True:
            produced += 1
            yield b"x" * 4096

    transport, _ = mock(lambda r: httpx.Response(200, content=endless()))
    with pytest.raises(ImageError) as caught:
        await fetch("https://img.example.com/x.png", transport, max_bytes=10_000)
    assert caught.value.code == "image_too_large"
    assert produced <= 4  # stopped right after crossing 10 000 bytes, not after reading everything


async def test_body_exactly_at_the_cap_is_accepted() -> None:
    assert await fetch("https://img.example.com/x", mock(serve(b"y" * 10_000))[0], max_bytes=10_000)


async def test_slow_server_hits_the_time_limit() -> None:
    async def slow(request: httpx.Request) -> httpx.Response:
        await asyncio.sleep(10)
        return httpx.Response(200, content=IMAGE)

    # The error code proves the limit fired: an upstream that answers after its sleep gives no error at all.
    with pytest.raises(ImageError) as caught:
        await fetch("https://img.example.com/x", mock(slow)[0], timeout_s=0.2)
    assert caught.value.code == "fetch_timeout"


async def test_slow_dns_counts_against_the_time_limit() -> None:
    async def slow_resolver(host: str, port: int) -> list[str]:
        await asyncio.sleep(10)
        return [PUBLIC_IP]

    with pytest.raises(ImageError) as caught:
        await fetch_image(
            "https://img.example.com/x",
            allows=allows,
            max_bytes=100,
            timeout_s=0.2,
            resolver=slow_resolver,
            transport=mock(serve())[0],
        )
    assert caught.value.code == "fetch_timeout"


async def test_network_errors_become_image_errors() -> None:
    def broken(request: httpx.Request) -> httpx.Response:
        raise httpx.ConnectError("connection refused", request=request)

    with pytest.raises(ImageError) as caught:
        await fetch("https://img.example.com/x", mock(broken)[0])
    assert caught.value.code == "fetch_failed"


# ---------------------------------------------------------------- the pinned connection (no MockTransport)


class FakeStream(httpcore.AsyncNetworkStream):
    def __init__(self, response: bytes) -> None:
        self.response = response
        self.written = b""

    async def read(self, max_bytes: int, timeout: float | None = None) -> bytes:
        chunk, self.response = self.response[:max_bytes], self.response[max_bytes:]
        return chunk

    async def write(self, buffer: bytes, timeout: float | None = None) -> None:
        self.written += buffer

    async def aclose(self) -> None:
        pass


class FakeNetwork(httpcore.AsyncNetworkBackend):
    """Records where connections go and answers with a canned HTTP/1.1 response."""

    def __init__(self) -> None:
        self.connects: list[tuple[str, int]] = []
        self.streams: list[FakeStream] = []

    async def connect_tcp(
        self,
        host: str,
        port: int,
        timeout: float | None = None,
        local_address: str | None = None,
        socket_options: typing.Iterable[httpcore.SOCKET_OPTION] | None = None,
    ) -> httpcore.AsyncNetworkStream:
        self.connects.append((host, port))
        if host != PUBLIC_IP:
            raise httpcore.ConnectError("unreachable")
        head = f"HTTP/1.1 200 OK\r\nContent-Length: {len(IMAGE)}\r\nContent-Type: image/png\r\n\r\n"
        stream = FakeStream(head.encode() + IMAGE)
        self.streams.append(stream)
        return stream


async def test_connection_goes_to_the_vetted_address_with_the_real_host_header(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    network = FakeNetwork()
    monkeypatch.setattr(httpcore, "AnyIOBackend", lambda: network)  # PinnedBackend's default inner backend
    # A rebinding resolver: public at check time, loopback for anyone who asks again.
    answers = iter([[PUBLIC_IP], ["127.0.0.1"], ["127.0.0.1"]])

    async def rebinding(host: str, port: int) -> list[str]:
        return next(answers)

    body = await fetch_image(
        "http://img.example.com:8080/cat.png",
        allows=allows,
        max_bytes=10_000,
        timeout_s=5,
        resolver=rebinding,
    )
    assert body == IMAGE
    assert network.connects == [(PUBLIC_IP, 8080)]
    request = network.streams[0].written.decode()
    assert request.startswith("GET /cat.png HTTP/1.1\r\n")
    assert "Host: img.example.com:8080\r\n" in request


async def test_pinned_backend_tries_vetted_addresses_in_order_and_nothing_else() -> None:
    network = FakeNetwork()
    backend = PinnedBackend({"img.example.com": ("203.0.113.9", PUBLIC_IP)}, inner=network)
    await backend.connect_tcp("IMG.example.com", 443)
    assert network.connects == [("203.0.113.9", 443), (PUBLIC_IP, 443)]
    with pytest.raises(httpcore.ConnectError):
        await backend.connect_tcp("other.example.com", 443)
    assert len(network.connects) == 2


def test_data_urls_decode_and_bad_ones_are_clear_errors() -> None:
    from webapp.media.fetch import decode_data_url
    from webapp.media.images import ImageError

    assert decode_data_url("data:image/png;base64,aGVsbG8=") == b"hello"
    for url, code in [
        ("data:text/html;base64,aGVsbG8=", "unsupported_image"),
        ("data:image/png,raw", "unsupported_image"),
        ("data:image/png;base64,@@@", "broken_image"),
    ]:
        try:
            decode_data_url(url)
        except ImageError as exc:
            assert exc.code == code
        else:
            raise AssertionError(url)
