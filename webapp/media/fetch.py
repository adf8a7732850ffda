"""Download an image from an allowlisted URL without becoming an SSRF proxy.

Every hop (the first URL and each redirect, at most MAX_REDIRECTS) must pass `allows(url)` and a strict
shape check (http/https, no userinfo, no percent sign in the host, no backslashes or control characters, so
the allowlist's WHATWG parser and httpx cannot disagree about the host). The host is then resolved and
refused if any address is not public (loopback, private, CGNAT, link-local incl. cloud metadata,
multicast, reserved, ...). The connection goes to one of exactly those vetted addresses: a network backend
pinned per host replaces DNS inside httpx, so a rebinding DNS server cannot swap in 127.0.0.1 between check
and connect.
TLS SNI and the Host header still carry the real host name, so certificates are verified as usual.

The body is streamed and abandoned past `max_bytes`; compression is declined (`Accept-Encoding:
identity`) so a small gzip bomb cannot inflate past the cap in one chunk. `timeout_s` bounds the whole
fetch, redirects and DNS included. Proxies from the environment are ignored (they would undo the pin).

Residual risk: wiring the pinned backend uses httpx's private `_pool` attribute (no public hook exists in
httpx 0.28); tests/media/test_fetch.py fails if that wiring stops taking effect.
"""

from __future__ import annotations

import asyncio
import base64
import binascii
import inspect
import ipaddress
import re
import socket
import typing
from collections.abc import Awaitable, Callable, Iterable, Mapping, Sequence
from typing import Final

import httpcore
import httpx

from webapp.media.images import ImageError

MAX_REDIRECTS: Final = 3
USER_AGENT: Final = "railchat-imagefetch/0.1"
_REDIRECT_CODES: Final = frozenset({301, 302, 303, 307, 308})
# http(s)://host[:port] then path/query/fragment; no "@" (userinfo) and no "%" in the authority: the allowlist
# decodes "img.example.com%2e" to the name it allows, as browsers do, while httpx kept it as written and
# resolved, connected to and named (SNI, Host) that other name.
_STRICT_URL: Final = re.compile(r"^https?://[^/?#@\\%]+(?:[/?#].*)?$", re.IGNORECASE | re.DOTALL)
# NAT64 embeds an IPv4 address; judge the embedded one.
_NAT64: Final = ipaddress.ip_network("64:ff9b::/96")
# Special-purpose blocks where no image host lives, refused whatever the running Python's own tables say
# (3.11 counts the dummy address 192.0.0.8 and the documentation prefix 3fff::/20 as global, for example):
# protocol assignments and anycast services, relays, documentation, segment-routing identifiers.
_NEVER_HOSTS: Final = tuple(
    ipaddress.ip_network(block)
    for block in (
        "192.0.0.0/24",  # IETF protocol assignments: dummy, PCP and TURN anycast, NAT64 discovery
        "192.88.99.0/24",  # 6to4 relay anycast
        "2001::/23",  # IETF protocol assignments, Teredo (a client's tunnel, never a host's) among them
        "3fff::/20",  # documentation
        "5f00::/16",  # SRv6 segment identifiers
    )
)

Resolver = Callable[[str, int], Awaitable[Iterable[str]] | Iterable[str]]
Pins = dict[str, tuple[str, ...]]


def is_public_address(address: str) -> bool:
    """True only for globally routable unicast addresses (what a public image host has)."""
    try:
        ip = ipaddress.ip_address(address)
    except ValueError:
        return False
    if any(ip in block for block in _NEVER_HOSTS):
        return False
    if isinstance(ip, ipaddress.IPv6Address):
        embedded = ip.ipv4_mapped or ip.sixtofour
        if embedded is None and ip in _NAT64:
            embedded = ipaddress.IPv4Address(int(ip) & 0xFFFFFFFF)
        if embedded is not None:
            return is_public_address(str(embedded))
        if ip.is_site_local:  # fec0::/10: deprecated, but still a network's own addresses where it is used
            return False
    return ip.is_global and not (
        ip.is_multicast
        or ip.is_private
        or ip.is_loopback
        or ip.is_link_local
        or ip.is_reserved
        or ip.is_unspecified
    )


async def resolve_host(host: str, port: int) -> list[str]:
    """All addresses of `host` via the system resolver, off the event loop."""
    infos = await asyncio.to_thread(socket.getaddrinfo, host, port, type=socket.SOCK_STREAM)
    return [str(info[4][0]) for info in infos]


async def fetch_image(
    url: str,
    *,
    allows: Callable[[str], bool],
    max_bytes: int,
    timeout_s: float,
    resolver: Resolver | None = None,
    transport: httpx.AsyncBaseTransport | None = None,
) -> bytes:
    """The body of the image at `url`; raises ImageError (codes below) for anything else.

    Codes: url_not_allowed, blocked_address, too_many_redirects, fetch_failed, fetch_timeout,
    image_too_large. `transport` replaces the pinned network transport (tests use httpx.MockTransport);
    addresses are vetted either way.
    """
    pins: Pins = {}
    client = httpx.AsyncClient(
        transport=transport or pinned_transport(pins),
        follow_redirects=False,
        timeout=httpx.Timeout(timeout_s),
        trust_env=False,
        headers={"User-Agent": USER_AGENT, "Accept": "image/*", "Accept-Encoding": "identity"},
    )
    try:
        async with asyncio.timeout(timeout_s), client:
            return await _follow(client, url, allows, resolver or resolve_host, pins, max_bytes)
    except TimeoutError as exc:
        raise ImageError("fetch_timeout", f"The image did not arrive within {timeout_s:g} seconds.") from exc
    except httpx.InvalidURL as exc:
        # httpx builds the next request of a redirect even when it follows none, and a Location it cannot
        # parse ("http:host/x") raises here, before our own check of that hop sees it.
        raise ImageError("url_not_allowed", "The image URL redirected to a malformed address.") from exc
    except (httpx.HTTPError, httpcore.NetworkError, OSError) as exc:
        raise ImageError("fetch_failed", "The image could not be downloaded (network error).") from exc


async def _follow(
    client: httpx.AsyncClient,
    url: str,
    allows: Callable[[str], bool],
    resolve: Resolver,
    pins: Pins,
    max_bytes: int,
) -> bytes:
    current = url
    for _hop in range(MAX_REDIRECTS + 1):
        target = _checked_url(current, allows)
        host = target.raw_host.decode("ascii").lower()
        pins[host] = await _vetted_addresses(host, target.port or _default_port(target), resolve)
        async with client.stream("GET", target) as response:
            location = response.headers.get("location")
            if response.status_code in _REDIRECT_CODES and location:
                current = _redirect_target(response.url, location)
                continue
            _check_response(response, host, max_bytes)
            return await _read_capped(response, host, max_bytes)
    raise ImageError("too_many_redirects", f"The image URL redirected more than {MAX_REDIRECTS} times.")


def _checked_url(url: str, allows: Callable[[str], bool]) -> httpx.URL:
    if not _STRICT_URL.match(url) or any(ord(c) <= 0x20 or ord(c) == 0x7F for c in url):
        raise ImageError("url_not_allowed", "Images are fetched only from plain http(s) URLs.")
    try:
        target = httpx.URL(url)
    except httpx.InvalidURL as exc:
        raise ImageError("url_not_allowed", "The image URL is malformed.") from exc
    if not target.raw_host or not allows(url):
        raise ImageError("url_not_allowed", f"Images from {target.host or 'this address'} are not allowed.")
    return target


def _redirect_target(base: httpx.URL, location: str) -> str:
    try:
        return str(base.join(location))
    except httpx.InvalidURL as exc:
        raise ImageError("url_not_allowed", "The image URL redirected to a malformed address.") from exc


def _default_port(url: httpx.URL) -> int:
    return 443 if url.scheme == "https" else 80


async def _vetted_addresses(host: str, port: int, resolve: Resolver) -> tuple[str, ...]:
    if _is_ip_literal(host):
        addresses: list[str] = [host]
    else:
        try:
            found = resolve(host, port)
            addresses = list(await found if inspect.isawaitable(found) else found)
        except (OSError, UnicodeError) as exc:
            raise ImageError("fetch_failed", f"The image host {host} could not be found.") from exc
    if not addresses:
        raise ImageError("fetch_failed", f"The image host {host} could not be found.")
    if not all(is_public_address(address) for address in addresses):
        # All, not any: a name that also points inward is a rebinding or SSRF setup.
        raise ImageError("blocked_address", f"The image host {host} points to a private or internal address.")
    return tuple(addresses)


def _is_ip_literal(host: str) -> bool:
    try:
        ipaddress.ip_address(host)
    except ValueError:
        return False
    return True


def _check_response(response: httpx.Response, host: str, max_bytes: int) -> None:
    if response.status_code != 200:
        raise ImageError("fetch_failed", f"{host} answered HTTP {response.status_code} for the image.")
    encoding = response.headers.get("content-encoding", "identity").strip().lower()
    if encoding not in ("", "identity"):
        raise ImageError("fetch_failed", f"{host} sent the image compressed ({encoding}), which we decline.")
    declared = response.headers.get("content-length", "")
    if declared.isdigit() and int(declared) > max_bytes:
        raise ImageError("image_too_large", _too_large(host, max_bytes))


async def _read_capped(response: httpx.Response, host: str, max_bytes: int) -> bytes:
    body = bytearray()
    # aiter_bytes equals the raw body here: any content-encoding was refused in _check_response.
    async for chunk in response.aiter_bytes():  # as they arrive: overshoot at most one read
        body += chunk
        if len(body) > max_bytes:
            raise ImageError("image_too_large", _too_large(host, max_bytes))
    return bytes(body)


def _too_large(host: str, max_bytes: int) -> str:
    return f"The image at {host} is larger than {max_bytes / 2**20:.1f} MiB."


# ---------------------------------------------------------------- connecting to vetted addresses only


class PinnedBackend(httpcore.AsyncNetworkBackend):
    """Connects a host name only to the addresses vetted for it, never through DNS."""

    def __init__(self, pins: Mapping[str, Sequence[str]], inner: httpcore.AsyncNetworkBackend | None = None):
        self._pins = pins
        self._inner = inner or httpcore.AnyIOBackend()

    async def connect_tcp(
        self,
        host: str,
        port: int,
        timeout: float | None = None,
        local_address: str | None = None,
        socket_options: typing.Iterable[httpcore.SOCKET_OPTION] | None = None,
    ) -> httpcore.AsyncNetworkStream:
        addresses = self._pins.get(host.lower())
        if not addresses:
            raise httpcore.ConnectError(f"no vetted address for {host}")
        last_error: Exception = httpcore.ConnectError(f"could not connect to {host}")
        for address in addresses:
            try:
                return await self._inner.connect_tcp(address, port, timeout, local_address, socket_options)
            except (httpcore.ConnectError, httpcore.ConnectTimeout) as exc:
                last_error = exc
        raise last_error

    async def connect_unix_socket(
        self,
        path: str,
        timeout: float | None = None,
        socket_options: typing.Iterable[httpcore.SOCKET_OPTION] | None = None,
    ) -> httpcore.AsyncNetworkStream:
        raise httpcore.ConnectError("unix sockets are never used for images")

    async def sleep(self, seconds: float) -> None:
        await self._inner.sleep(seconds)


def pinned_transport(
    pins: Mapping[str, Sequence[str]], inner: httpcore.AsyncNetworkBackend | None = None
) -> httpx.AsyncHTTPTransport:
    transport = httpx.AsyncHTTPTransport(trust_env=False, retries=0)
    # httpx offers no public hook for the network backend: replace the pool it built with one that
    # connects through PinnedBackend. Same TLS verification as httpx's default.
    transport._pool = httpcore.AsyncConnectionPool(
        ssl_context=httpx.create_ssl_context(),
        network_backend=PinnedBackend(pins, inner),
        max_connections=4,
        http1=True,
        http2=False,
    )
    return transport


def decode_data_url(url: str) -> bytes:
    """`data:image/png;base64,...` -> bytes. The image step still verifies the content itself."""
    header, _, payload = url.partition(",")
    if not header.startswith("data:image/") or ";base64" not in header:
        raise ImageError(
            "unsupported_image", "Only base64 data URLs of images (PNG, JPEG, WebP, GIF) are accepted."
        )
    try:
        return base64.b64decode(payload, validate=True)
    except (binascii.Error, ValueError):
        raise ImageError("broken_image", "The image data URL is not valid base64.") from None
