#!/usr/bin/env python3
"""Start railchat from a source checkout (`make run`); installed, the same launcher is the `railchat` command.

The launcher lives in the package (`webapp.launch`) so that a wheel carries it too.
"""

from __future__ import annotations

from webapp.launch import build_parser, cli, main, parse_args, settings_from

__all__ = ["build_parser", "main", "parse_args", "settings_from"]

if __name__ == "__main__":
    cli()
