"""Users, roles and API keys from an auth file (`--auth-file`, TOML), and who may call `/v1/*` and `/metrics`.

    [users.alice]
    role = "chatter"                       # chatter | reviewer | admin
    password = "scrypt$16384$8$1$<salt>$<hash>"   # python -m webapp.auth hash-password
    api_keys = ["sha256$<hex>"]            # python -m webapp.auth new-key  (prints the key once)

Passwords are stored as salted scrypt hashes. API keys are long random tokens, so a SHA-256 of the key is
enough to store them (nothing to brute-force) and keeps per-request checks cheap. A `.json` file with the
same structure works too.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import ipaddress
import json
import secrets
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

Role = Literal["chatter", "reviewer", "admin"]
ROLES: tuple[Role, ...] = ("chatter", "reviewer", "admin")  # each role can do what the ones before it can
LOCAL_OWNER = "api:local"  # owner of API sessions when the app runs open on loopback
API_KEY_PREFIX = "rc-"


class AuthFileError(ValueError):
    pass


class AccessDenied(Exception):
    def __init__(self, status: int, message: str, code: str) -> None:
        super().__init__(message)
        self.status = status
        self.message = message
        self.code = code


@dataclass(frozen=True)
class User:
    name: str
    role: Role
    password_hash: str | None = None
    api_key_hashes: tuple[str, ...] = ()

    def has_role(self, role: Role) -> bool:
        return ROLES.index(self.role) >= ROLES.index(role)


# ---- secrets ----------------------------------------------------------------------------------------------

_SCRYPT = {"n": 2**14, "r": 8, "p": 1}


def hash_password(password: str) -> str:
    salt = secrets.token_bytes(16)
    digest = hashlib.scrypt(password.encode(), salt=salt, **_SCRYPT)
    return "$".join(
        ["scrypt", str(_SCRYPT["n"]), str(_SCRYPT["r"]), str(_SCRYPT["p"]), _b64(salt), _b64(digest)]
    )


def verify_password(stored: str, password: str) -> bool:
    try:
        scheme, n, r, p, salt, digest = stored.split("$")
        if scheme != "scrypt":
            return False
        actual = hashlib.scrypt(
            password.encode(), salt=_unb64(salt), n=int(n), r=int(r), p=int(p), maxmem=256 * 2**20
        )
    except (ValueError, TypeError):
        return False
    return hmac.compare_digest(actual, _unb64(digest))


def new_api_key() -> str:
    return API_KEY_PREFIX + secrets.token_urlsafe(32)


def hash_api_key(key: str) -> str:
    return "sha256$" + hashlib.sha256(key.encode()).hexdigest()


def _b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).decode().rstrip("=")


def _unb64(text: str) -> bytes:
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


# A real hash to compare against when the user is unknown, so a wrong name costs as long as a wrong password.
_DUMMY_HASH = "scrypt$16384$8$1$" + "A" * 22 + "$" + "A" * 74


# ---- the file -----------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class AuthFile:
    users: dict[str, User] = field(default_factory=dict)

    @classmethod
    def load(cls, path: Path) -> AuthFile:
        text = path.read_text()
        try:
            if path.suffix == ".json":
                data = json.loads(text)
            else:
                import tomllib

                data = tomllib.loads(text)
        except ValueError as exc:
            raise AuthFileError(f"{path}: cannot parse: {exc}") from None
        return cls.from_mapping(data, source=str(path))

    @classmethod
    def from_mapping(cls, data: dict[str, Any], source: str = "auth file") -> AuthFile:
        users: dict[str, User] = {}
        for name, entry in (data.get("users") or {}).items():
            role = entry.get("role", "chatter")
            if role not in ROLES:
                raise AuthFileError(f"{source}: user {name!r}: role must be one of {', '.join(ROLES)}")
            keys = tuple(entry.get("api_keys") or ())
            if any(not k.startswith("sha256$") for k in keys):
                raise AuthFileError(
                    f"{source}: user {name!r}: api_keys must be hashes (python -m webapp.auth new-key)"
                )
            users[name] = User(name, role, entry.get("password"), keys)
        return cls(users)

    def check_password(self, name: str, password: str) -> User | None:
        user = self.users.get(name)
        ok = verify_password(user.password_hash if user and user.password_hash else _DUMMY_HASH, password)
        return user if ok and user is not None and user.password_hash else None

    def user_for_api_key(self, key: str) -> User | None:
        wanted = hash_api_key(key)
        found = None
        for user in self.users.values():
            for stored in user.api_key_hashes:
                if hmac.compare_digest(stored, wanted):
                    found = user
        return found


# ---- who may call the API ----------------------------------------------------------------------------------


def is_loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


@dataclass(frozen=True)
class ApiAccess:
    """With an auth file: a Bearer API key is required. Without one: open only on loopback, never in demo."""

    auth: AuthFile | None
    open_locally: bool

    @classmethod
    def from_settings(cls, settings: Any) -> ApiAccess:
        auth = AuthFile.load(Path(settings.auth_file)) if settings.auth_file else None
        open_locally = auth is None and is_loopback(settings.host) and not settings.demo_mode
        return cls(auth, open_locally)

    def owner(self, authorization: str | None, role: Role = "chatter") -> str:
        """The session owner for this request, or AccessDenied."""
        if self.auth is None:
            if self.open_locally:
                return LOCAL_OWNER
            raise AccessDenied(
                403, "The API is disabled: start the app with --auth-file to issue API keys.", "api_disabled"
            )
        scheme, _, key = (authorization or "").partition(" ")
        user = self.auth.user_for_api_key(key.strip()) if scheme.lower() == "bearer" and key.strip() else None
        if user is None:
            raise AccessDenied(
                401, "Missing or invalid API key (send Authorization: Bearer KEY).", "invalid_api_key"
            )
        if not user.has_role(role):
            raise AccessDenied(403, f"This API key's user needs the {role} role.", "insufficient_role")
        return f"user:{user.name}"  # the same owner id the UI gives a signed-in user
