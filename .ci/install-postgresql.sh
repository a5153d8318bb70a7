#!/usr/bin/env bash
# Install PostgreSQL, the server that the store tests start in a temporary directory
# (tests/pg_server.py: initdb + pg_ctl on a free port; as the system user postgres when CI
# runs as root). Idempotent and non-interactive: does nothing when initdb is there.
set -euo pipefail

find_initdb() {
    command -v initdb 2>/dev/null || ls /usr/lib/postgresql/*/bin/initdb 2>/dev/null | sort -V | tail -n 1
}

if [ -n "$(find_initdb)" ]; then
    exit 0
fi

sudo=""
if [ "$(id -u)" -ne 0 ]; then
    sudo="sudo"
fi

export DEBIAN_FRONTEND=noninteractive
$sudo apt-get update -qq
$sudo apt-get install -y -qq --no-install-recommends postgresql >/dev/null

if [ -z "$(find_initdb)" ]; then
    echo "install-postgresql: initdb is still missing after apt-get install" >&2
    exit 1
fi
echo "install-postgresql: $("$(find_initdb)" --version)"
