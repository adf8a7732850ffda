"""The URL allowlist: which links may appear in a chat, and finding links in free text.

Parsing follows the WHATWG URL standard for the parts that decide where a browser (or our image
fetcher) would really connect: backslashes count as slashes, any number of slashes may follow the
scheme, userinfo is cut at the last ``@``, hosts are percent-decoded and IDNA-mapped, and a host whose
last label is numeric is an IPv4 address in any of its spellings (2130706433, 0177.0.0.1, 0x7f.1, 127.1).
IP literals never pass, so none of those spellings needs to be decoded to its address.
"""

from __future__ import annotations

import html
import re
import unicodedata
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from urllib.parse import unquote_to_bytes

import idna

ALLOWED_DATA_IMAGE_TYPES = ("image/png", "image/jpeg", "image/webp", "image/gif")
DEFAULT_PORTS = {"https": 443, "http": 80}

# Names that resolve to the machine itself or to cloud metadata services, whatever the allowlist says.
_INTERNAL_NAMES = frozenset({"localhost", "metadata", "metadata.google.internal", "instance-data"})
_INTERNAL_SUFFIXES = (".localhost", ".internal", ".local", ".arpa", ".lan", ".intranet", ".corp")

# WHATWG forbidden domain code points, plus "%" which must be gone after percent-decoding.
_FORBIDDEN_HOST_CHARS = frozenset("\x00\t\n\r #/:<>?@[\\]^|%\x7f") | frozenset(map(chr, range(0x20)))

# Cyrillic and Greek letters that render like Latin ones: a label made only of them spoofs a Latin name.
_LATIN_LOOKALIKES = frozenset("аеорсухіјѕԁһӏԛԝвкмнтАЕОРСХІЈЅВКМНТοαορτνικχυΑΒΕΗΙΚΜΝΟΡΤΥΧΖ")


@dataclass(frozen=True)
class ParsedUrl:
    scheme: str
    host: str  # ASCII (A-label) form, lower case, no trailing dot; "" for data: URLs
    port: int | None


class UrlRejected(ValueError):
    """The URL can never pass; ``reason`` is phrased for a chatter."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


def _display(host: str) -> str:
    """Host as a chatter recognises it: Unicode if it decodes, always short."""
    try:
        shown = idna.decode(host) if "xn--" in host else host
    except idna.IDNAError:
        shown = host
    return shown if len(shown) <= 80 else shown[:77] + "..."


def _clean(raw: str) -> str:
    # Browsers drop leading/trailing C0 controls and spaces and every tab/newline inside a URL.
    return re.sub(
        r"[\t\n\r]",
        "",
        raw.strip(
            "\x00\x01\x02\x03\x04\x05\x06\x07\x08\x0b\x0c\x0e\x0f"
            "\x10\x11\x12\x13\x14\x15\x16\x17\x18\x19\x1a\x1b"
            "\x1c\x1d\x1e\x1f \t\n\r"
        ),
    )


def _check_data_url(rest: str) -> None:
    mediatype = rest.split(",", 1)[0].split(";", 1)[0].strip().lower()
    if mediatype not in ALLOWED_DATA_IMAGE_TYPES or "," not in rest:
        raise UrlRejected("data: links other than PNG, JPEG, WebP or GIF images are not allowed here")


def _ends_in_number(labels: Sequence[str]) -> bool:
    last = labels[-1]
    return last.isdigit() or bool(re.fullmatch(r"0[xX][0-9a-fA-F]*", last))


def _label_scripts(label: str) -> set[str]:
    scripts = set()
    for char in label:
        if char.isalpha():
            scripts.add(unicodedata.name(char, "UNKNOWN").split(" ")[0])
    return scripts


def _check_lookalikes(ascii_host: str) -> None:
    for label in ascii_host.split("."):
        if not label.startswith("xn--"):
            continue
        try:
            unicode_label = idna.decode(label)
        except idna.IDNAError:
            raise UrlRejected("links with a malformed international host name are not allowed here") from None
        letters = [c for c in unicode_label if c.isalpha()]
        mixed = len(_label_scripts(unicode_label)) > 1
        spoof = bool(letters) and all(c in _LATIN_LOOKALIKES for c in letters)
        if mixed or spoof:
            raise UrlRejected(
                f"links to {ascii_host[:80]} are not allowed here (the name uses look-alike characters)"
            )


def normalize_host(host: str) -> str:
    """Percent-decode, IDNA-map and lower-case a host; raise UrlRejected for anything not a DNS name."""
    try:
        host = unquote_to_bytes(host).decode("utf-8")
    except UnicodeDecodeError:
        raise UrlRejected("links with a malformed host are not allowed here") from None
    try:
        mapped = idna.uts46_remap(host, std3_rules=False, transitional=False)
    except idna.IDNAError:
        raise UrlRejected("links with a malformed host are not allowed here") from None
    if mapped.endswith("."):
        mapped = mapped[:-1]  # "example.com." is the same DNS name as "example.com"
    if not mapped:
        raise UrlRejected("links without a host are not allowed here")
    if any(c in _FORBIDDEN_HOST_CHARS for c in mapped):
        raise UrlRejected("links with a malformed host are not allowed here")
    labels = mapped.split(".")
    if _ends_in_number(labels):
        raise UrlRejected("links to IP addresses are not allowed here")
    if any(not label for label in labels):
        raise UrlRejected("links with a malformed host are not allowed here")
    ascii_labels = []
    for label in labels:
        if label.isascii():
            if not re.fullmatch(r"[a-z0-9_-]{1,63}", label):
                raise UrlRejected("links with a malformed host are not allowed here")
            ascii_labels.append(label)
            continue
        try:
            ascii_labels.append(idna.encode(label, uts46=False).decode("ascii"))
        except idna.IDNAError:
            raise UrlRejected("links with a malformed international host name are not allowed here") from None
    return ".".join(ascii_labels)


def parse_url(raw: str) -> ParsedUrl:
    """Parse an absolute URL the way a browser decides where to connect; raise UrlRejected if it can't pass."""
    url = _clean(raw)
    match = re.match(r"([A-Za-z][A-Za-z0-9+.\-]*):", url)
    if match is None:
        if re.match(r"[/\\]{2}", url):
            url = "https:" + url  # network-path reference: the page's own scheme, which is https
            match = re.match(r"(https):", url)
            assert match is not None
        else:
            raise UrlRejected("links without a host are not allowed here")
    scheme = match.group(1).lower()
    rest = url[match.end() :]
    if scheme == "data":
        _check_data_url(rest)
        return ParsedUrl("data", "", None)
    if scheme not in DEFAULT_PORTS:
        raise UrlRejected(f"{scheme[:20]}: links are not allowed here")
    authority = re.split(r"[/\\?#]", rest.lstrip("/\\"), maxsplit=1)[0]
    host_port = authority.rpartition("@")[2]
    if host_port.startswith("["):
        raise UrlRejected("links to IP addresses are not allowed here")
    host, _, port_text = host_port.partition(":") if host_port.count(":") == 1 else (host_port, "", "")
    if ":" in host:
        raise UrlRejected("links with a malformed host are not allowed here")
    if port_text and not port_text.isdigit():
        raise UrlRejected("links with a malformed port are not allowed here")
    port = int(port_text) if port_text else None
    return ParsedUrl(scheme, normalize_host(host), port)


def _normalize_entry(entry: str) -> str:
    entry = entry.strip().lower()
    wildcard = entry.startswith("*.")
    host = normalize_host(entry[2:] if wildcard else entry)
    return "*." + host if wildcard else host


class UrlPolicy:
    """Decides whether one URL may be shown or fetched. Entries: ``host`` (that host only) or ``*.host``
    (its subdomains only)."""

    def __init__(self, entries: Iterable[str], allow_http: bool = False) -> None:
        self.allow_http = allow_http
        self.entries = tuple(_normalize_entry(e) for e in entries if e.strip())
        self._exact = frozenset(e for e in self.entries if not e.startswith("*."))
        self._suffixes = tuple(e[1:] for e in self.entries if e.startswith("*."))

    def host_allowed(self, ascii_host: str) -> bool:
        return ascii_host in self._exact or any(ascii_host.endswith(s) for s in self._suffixes)

    def explain(self, url: str) -> str | None:
        """None if the URL passes, else the reason it does not (plain words, names the host)."""
        try:
            parsed = parse_url(url)
        except UrlRejected as rejected:
            return rejected.reason
        if parsed.scheme == "data":
            return None
        if parsed.scheme == "http" and not self.allow_http:
            return "plain http links are not allowed here (use https)"
        host = parsed.host
        if host in _INTERNAL_NAMES or host.endswith(_INTERNAL_SUFFIXES):
            return "links to local or internal addresses are not allowed here"
        try:
            _check_lookalikes(host)
        except UrlRejected as rejected:
            return rejected.reason
        if not self.host_allowed(host):
            return f"links to {_display(host)} are not allowed here"
        if parsed.port is not None and parsed.port != DEFAULT_PORTS[parsed.scheme]:
            return f"links to {_display(host)} on port {parsed.port} are not allowed here"
        return None

    def allows(self, url: str) -> bool:
        return self.explain(url) is None

    def first_violation(self, urls: Iterable[str]) -> str | None:
        for url in urls:
            reason = self.explain(url)
            if reason is not None:
                return reason
        return None


# --- finding URLs in free text -------------------------------------------------------------------

# Schemes worth catching even without "//": the dangerous ones and the ones browsers treat as special.
_SCHEME_URL = re.compile(
    r"(?i)(?<![a-z0-9+.\-])(?:(?:https?|ftp|wss?|file|javascript|vbscript|data|blob|gopher):[^\s<>\"'`)\]]+"
    r"|[a-z][a-z0-9+.\-]{1,30}://[^\s<>\"'`)\]]+)"
)
_TRAILING_PUNCT = ".,;:!?*_~"
# Markdown inline targets, reference definitions (also quoted, in list items, destination on the next
# line), angle autolinks, HTML attributes, CSS url().
_MD_INLINE = re.compile(r"\]\(\s*<?([^)\s>]*)")
_MD_REFDEF = re.compile(r"(?m)^(?:[ \t]*>)*[ \t]*(?:(?:[-+*]|\d{1,9}[.)])[ \t]+)?\[[^\]\n]+\]:\s*<?([^\s>]+)")
_AUTOLINK = re.compile(r"<([a-zA-Z][a-zA-Z0-9+.\-]*:[^\s<>]*)>")
_HTML_ATTR = re.compile(
    r"(?i)\b(?:src|href|srcset|action|formaction|poster|background|data|cite|longdesc|xlink:href|ping"
    r"|lowsrc|dynsrc|imagesrcset)\s*=\s*(?:\"([^\"]*)\"|'([^']*)'|([^\s>]+))"
)
_CSS_URL = re.compile(r"(?i)url\(\s*['\"]?([^'\")]+)")
# A network-path reference ("//host/x", also with backslashes) outside a construct: the page's scheme.
_SCHEME_RELATIVE = re.compile(r"(?<![\w:/\\.@%\-])[/\\]{2}[^\s/\\<>\"'`)\]]*\.[^\s<>\"'`)\]]+")
_LABEL = r"[a-z0-9\u00a1-\uffff][a-z0-9\u00a1-\uffff\-]{0,62}"
_BARE_DOMAIN = re.compile(
    rf"(?i)(?<![\w@.\-])((?:{_LABEL}[.\u3002\uff0e\uff61])+[a-z\u00a1-\uffff][a-z0-9\u00a1-\uffff\-]{{1,62}})"
    r"(:\d{1,5})?(?=([/?#\\(]?))"
)
_BARE_IPV4 = re.compile(
    r"(?i)(?<![\w.@\-])((?:0x[0-9a-f]+|\d+)(?:\.(?:0x[0-9a-f]+|\d+)){3}|localhost)(?=:\d|/)"
)
# TLDs that make a bare "name.tld" a link without a path; file extensions (md, py, sh, zip...) left out.
LINK_TLDS = frozenset(
    "com org net edu gov mil int io ai dev app co me info biz xyz site online tech cloud page link click top "
    "uk de fr ru cn jp us ca au nl eu ch it es se no in br tk ly gl gg to cc tv ws be at pl cz dk fi ie nz "
    "kr tw hk sg za mx ar onion test example invalid localhost internal local arpa".split()
)
_MD_ESCAPE = re.compile(r"\\([!-/:-@\[-`{-~])")


def absolute_target(target: str) -> str | None:
    """A link target as an absolute URL, or None when it stays on the page's own origin."""
    target = _clean(html.unescape(target))
    target = _MD_ESCAPE.sub(r"\1", target)
    if not target:
        return None
    if re.match(r"[A-Za-z][A-Za-z0-9+.\-]*:", target) or re.match(r"[/\\]{2}", target):
        return target
    return None


def _construct_targets(text: str) -> Iterable[str]:
    for pattern in (_MD_INLINE, _MD_REFDEF, _AUTOLINK, _CSS_URL):
        for match in pattern.finditer(text):
            yield match.group(1)
    for match in _HTML_ATTR.finditer(text):
        value = next(g for g in match.groups() if g is not None)
        # srcset: "url 1x, url 2x"
        yield from (part.strip().split(" ")[0] for part in value.split(",")) if "," in value else (value,)


def _views(text: str) -> tuple[str, ...]:
    # What a markdown/HTML renderer would decode: entities (&#58;) and backslash escapes (https\://).
    unescaped = html.unescape(text)
    return tuple(dict.fromkeys((text, unescaped, _MD_ESCAPE.sub(r"\1", unescaped))))


def find_urls(text: str, *, bare_names: bool = True) -> list[str]:
    """Every URL a renderer or reader could follow in ``text``, as absolute URLs (bare names get https:).

    ``bare_names=False`` leaves out names without a scheme in running text (``example.com``, ``//host``):
    a caller that knows where code is looks for those in the prose only, with ``bare_urls``.
    """
    found: list[str] = []
    for view in _views(text):
        for match in _SCHEME_URL.finditer(view):
            found.append(match.group(0).rstrip(_TRAILING_PUNCT))
        for target in _construct_targets(view):
            absolute = absolute_target(target)
            if absolute is not None:
                found.append(absolute)
        if bare_names:
            found.extend(bare_urls(_SCHEME_URL.sub(" ", view)))
    return list(dict.fromkeys(found))


def bare_urls(
    text: str, tlds: frozenset[str] = LINK_TLDS, skip_tlds: frozenset[str] = frozenset()
) -> list[str]:
    """Links without a scheme in running text: ``name.tld`` (a linkifier's guess), ``//host``, ``1.2.3.4/``.

    A name is a link when it starts with ``www.``, has a port or a path, or ends in one of ``tlds`` not in
    ``skip_tlds``; ``name.tld(`` is a call in code, not a link.
    """
    found = ["https:" + m.group(0).rstrip(_TRAILING_PUNCT) for m in _SCHEME_RELATIVE.finditer(text)]
    for match in _BARE_DOMAIN.finditer(text):
        name, port, next_char = match.group(1), match.group(2), match.group(3)
        tld = re.split(r"[.\u3002\uff0e\uff61]", name)[-1].lower()
        if next_char == "(":
            continue
        known = (tld in tlds and tld not in skip_tlds) or not tld.isascii()
        if name.lower().startswith("www.") or port or next_char or known:
            found.append("https://" + name + (port or "") + "/")
    for match in _BARE_IPV4.finditer(text):
        found.append("https://" + match.group(1) + "/")
    return found
