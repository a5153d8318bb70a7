#!/usr/bin/env bash
# Install ngIRCd, the IRC server that the IRC adapter's end-to-end tests start on loopback
# (tests/irc_server.py). Idempotent and non-interactive: does nothing when ngircd is there.
set -euo pipefail

if command -v ngircd >/dev/null 2>&1 || [ -x /usr/sbin/ngircd ]; then
    exit 0
fi

sudo=""
if [ "$(id -u)" -ne 0 ]; then
    sudo="sudo"
fi

export DEBIAN_FRONTEND=noninteractive
$sudo apt-get update -qq
$sudo apt-get install -y -qq --no-install-recommends ngircd >/dev/null

if ! command -v ngircd >/dev/null 2>&1 && [ ! -x /usr/sbin/ngircd ]; then
    echo "install-ngircd: ngircd is still missing after apt-get install" >&2
    exit 1
fi
echo "install-ngircd: $(/usr/sbin/ngircd --version 2>/dev/null | head -n 1)"
