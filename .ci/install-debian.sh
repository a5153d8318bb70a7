#!/usr/bin/env bash
# Install the Debian packages the tests start or drive themselves: ngIRCd (the IRC adapter's
# end-to-end tests, tests/irc_server.py), Chromium (the web pages' tests, headless through
# Playwright; never `playwright install`) and PostgreSQL (the store tests start a throw-away
# server with initdb + pg_ctl, tests/pg_server.py). Idempotent and non-interactive: installs
# only what is missing, with one `apt-get update`.
set -euo pipefail

find_initdb() {
    command -v initdb 2>/dev/null || ls /usr/lib/postgresql/*/bin/initdb 2>/dev/null | sort -V | tail -n 1
}
have_ngircd() { command -v ngircd >/dev/null 2>&1 || [ -x /usr/sbin/ngircd ]; }
have_chromium() { [ -x /usr/bin/chromium ]; }
have_postgresql() { [ -n "$(find_initdb)" ]; }

missing=()
have_ngircd || missing+=(ngircd)
have_chromium || missing+=(chromium)
have_postgresql || missing+=(postgresql)

if [ "${#missing[@]}" -gt 0 ]; then
    sudo=""
    if [ "$(id -u)" -ne 0 ]; then
        sudo="sudo"
    fi
    export DEBIAN_FRONTEND=noninteractive
    $sudo apt-get update -qq
    $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

for package in ngircd chromium postgresql; do
    if ! "have_$package"; then
        echo "install-debian: $package is still missing after apt-get install" >&2
        exit 1
    fi
done
echo "install-debian: $(/usr/sbin/ngircd --version 2>/dev/null | head -n 1 || ngircd --version | head -n 1)"
echo "install-debian: $(/usr/bin/chromium --version 2>/dev/null | head -n 1)"
echo "install-debian: $("$(find_initdb)" --version)"
