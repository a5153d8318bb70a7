#!/usr/bin/env bash
# Install Debian's Chromium, the browser that the web pages' tests drive headless through
# Playwright (tests/test_web.py; never `playwright install`). Idempotent and non-interactive.
set -euo pipefail

if [ -x /usr/bin/chromium ]; then
    exit 0
fi

sudo=""
if [ "$(id -u)" -ne 0 ]; then
    sudo="sudo"
fi

export DEBIAN_FRONTEND=noninteractive
$sudo apt-get update -qq
$sudo apt-get install -y -qq --no-install-recommends chromium >/dev/null

if [ ! -x /usr/bin/chromium ]; then
    echo "install-chromium: /usr/bin/chromium is still missing after apt-get install" >&2
    exit 1
fi
echo "install-chromium: $(/usr/bin/chromium --version 2>/dev/null | head -n 1)"
