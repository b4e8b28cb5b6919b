#!/usr/bin/env bash
# Install Docker Compose v2 (the `docker compose` plugin) where it is missing or older than 2.24, which
# deploy/cluster/compose.yaml needs (its top-level `name`; `!reset` in tests/ray's override). Debian 12 carries only
# Compose 1.29 (the Python `docker-compose`), so this takes Debian 13's docker-compose package: a Go binary that
# needs only libc 2.34 or newer. Run as root; .ci/run runs it. Usage: tools/install-compose.sh
set -euo pipefail
MIN=2.24
have=$(docker compose version --short 2>/dev/null || true)
if [ -n "$have" ] && [ "$(printf '%s\n%s\n' "$MIN" "${have%%-*}" | sort -V | head -1)" = "$MIN" ]; then
    exit 0
fi
apt=$(mktemp -d /tmp/pepper-compose.XXXXXX)
trap 'rm -rf "$apt"' EXIT
# A sources list of its own: the machine's apt configuration is left as it was (no release added to it).
mkdir -p "$apt/lists/partial" "$apt/archives/partial"
echo "deb [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] http://deb.debian.org/debian trixie main" \
    >"$apt/sources.list"
opts=(-o Dir::Etc::sourcelist="$apt/sources.list" -o Dir::Etc::sourceparts=/nonexistent
      -o Dir::State::Lists="$apt/lists" -o Dir::Cache::archives="$apt/archives" -o DPkg::Lock::Timeout=300
      -o APT::Sandbox::User=root)   # its folders are not _apt's
apt-get "${opts[@]}" update -qq
apt-get "${opts[@]}" install -y -qq --download-only --no-install-recommends docker-compose >/dev/null
deb=$(ls "$apt"/archives/docker-compose_2.*.deb)
dpkg -i "$deb" >/dev/null
echo "tools/install-compose.sh: $(docker compose version)"
