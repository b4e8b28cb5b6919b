#!/usr/bin/env bash
# Build the sandbox's images locally (no image registry is needed or used; docs/sandbox.md):
#   pepper-base:bookworm  Debian bookworm minbase with python3 and nodejs, by debootstrap from the apt mirror
#                         this machine is configured with, imported with `docker import` (built once: ~100 MB)
#   pepper-python:latest  pepper-base with the Python bot SDK (pepper-bot, grpcio, protobuf) in its dist-packages
#   pepper-node:latest    the same image (the Node.js bot brings its node_modules in its own files)
# Usage: images/build.sh [PYTHON]   PYTHON: an interpreter whose pip installs the SDK (default: python3)
set -euo pipefail
cd "$(dirname "$0")/.."
PY=${1:-python3}
export DOCKER_BUILDKIT=0   # the classic builder: no buildx plugin needed

# The Debian mirror of this machine's apt sources (deb822 or one-line format), never a hard-coded address.
mirror() {
    local m
    m=$(awk '/^URIs:/ {print $2; exit}' /etc/apt/sources.list.d/debian.sources 2>/dev/null || true)
    [ -n "$m" ] || m=$(awk '$1 == "deb" && $3 ~ /^bookworm$/ {print $2; exit}' /etc/apt/sources.list /etc/apt/sources.list.d/*.list 2>/dev/null || true)
    [ -n "$m" ] || { echo "images/build.sh: no Debian bookworm mirror in /etc/apt/sources.list*" >&2; exit 2; }
    echo "$m"
}

if ! docker image inspect pepper-base:bookworm >/dev/null 2>&1; then
    command -v debootstrap >/dev/null || { echo "images/build.sh: debootstrap is missing: apt-get install debootstrap" >&2; exit 2; }
    root=$(mktemp -d /tmp/pepper-rootfs.XXXXXX)
    trap 'rm -rf "$root"' EXIT
    echo "images: debootstrap bookworm from $(mirror) (once per machine)"
    debootstrap --variant=minbase --include=python3,nodejs bookworm "$root" "$(mirror)" >"$root.log" 2>&1 \
        || { tail -20 "$root.log" >&2; exit 1; }
    # What a bot never needs: apt's lists and caches, documentation, locales but C.
    rm -rf "$root"/var/cache/apt/* "$root"/var/lib/apt/lists/* "$root"/usr/share/{doc,man,info}/* "$root.log"
    find "$root"/usr/share/locale -mindepth 1 -maxdepth 1 ! -name 'C*' -exec rm -rf {} +
    tar -C "$root" -c . | docker import -c 'ENV PATH=/usr/local/bin:/usr/bin:/bin LANG=C.UTF-8' - pepper-base:bookworm
fi

ctx=$(mktemp -d /tmp/pepper-image.XXXXXX)
trap 'rm -rf "$ctx"' EXIT
# The SDK and its two dependencies (manylinux wheels for CPython 3.11, Debian's python3 in bookworm).
"$PY" -m pip install --quiet --disable-pip-version-check --no-compile --target "$ctx/site" ./sdk/python
rm -rf sdk/python/build sdk/python/*.egg-info "$ctx"/site/bin
cp images/Dockerfile.python "$ctx/Dockerfile"
docker build --quiet -t pepper-python:latest "$ctx" >/dev/null
docker tag pepper-python:latest pepper-node:latest
echo "images: pepper-python:latest, pepper-node:latest ($(docker image inspect -f '{{.Size}}' pepper-python:latest | awk '{printf "%.0f MB", $1/1e6}'))"
