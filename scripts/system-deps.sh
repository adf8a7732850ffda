#!/usr/bin/env bash
# System packages the test suite needs: Debian's Chromium (browser tests) and PostgreSQL (store tests).
# Installs them when missing and we are root; otherwise says what to install.
set -euo pipefail
missing=()
command -v chromium >/dev/null 2>&1 || missing+=(chromium)
[ -x /usr/lib/postgresql/15/bin/initdb ] || ls /usr/lib/postgresql/*/bin/initdb >/dev/null 2>&1 || missing+=(postgresql)
[ ${#missing[@]} -eq 0 ] && exit 0
if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
  echo "Installing system packages: ${missing[*]}"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
else
  echo "warning: missing system packages: ${missing[*]} (install them with your package manager);" \
       "the tests that need them will fail." >&2
fi
