"""Command line for the auth file: hash a password, make an API key (shown once) and its stored hash.

python -m webapp.auth hash-password
python -m webapp.auth new-key
"""

from __future__ import annotations

import sys

from webapp.web.auth import hash_api_key, hash_password, new_api_key


def main(argv: list[str]) -> int:
    if argv[:1] == ["hash-password"]:
        import getpass

        password = getpass.getpass("Password: ")
        if password != getpass.getpass("Again: "):
            print("Passwords differ.", file=sys.stderr)
            return 1
        print(f'password = "{hash_password(password)}"')
        return 0
    if argv[:1] == ["new-key"]:
        key = new_api_key()
        print(f"API key (shown once, give it to the user): {key}")
        print(f'api_keys = ["{hash_api_key(key)}"]')
        return 0
    print("usage: python -m webapp.auth hash-password | new-key", file=sys.stderr)
    return 2


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
