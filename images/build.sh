#!/usr/bin/env bash
# Build the sandbox's images locally (no image registry is needed or used; docs/sandbox.md):
#   pepper-base:bookworm  Debian bookworm's python3 and nodejs and what they need, from the apt sources this
#                         machine is configured with, imported with `docker import` (built once per machine)
#   pepper-python:latest  pepper-base with the Python bot SDK (pepper-bot, grpcio, protobuf) in its dist-packages
#   pepper-node:latest    the same image (the Node.js bot brings its node_modules in its own files)
# Usage: images/build.sh [PYTHON]   PYTHON: an interpreter whose pip installs the SDK (default: python3)
set -euo pipefail
cd "$(dirname "$0")/.."
PY=${1:-python3}
export DOCKER_BUILDKIT=0   # the classic builder: no buildx plugin needed

if ! docker image inspect pepper-base:bookworm >/dev/null 2>&1; then
    # Debian's python3 and nodejs with every package they depend on, as this machine's apt resolves them against
    # an empty package database (its configured mirror, Debian's releases pinned over any other repository),
    # unpacked into a root filesystem without running their scripts (none is needed to run python3 or node), and
    # imported: ~20 s and ~150 MB, where debootstrap takes ~3 min for a whole Debian base system.
    work=$(mktemp -d /tmp/pepper-rootfs.XXXXXX)
    trap 'rm -rf "$work"' EXIT
    mkdir -p "$work/debs/partial" "$work/root"
    : >"$work/status"
    printf 'Package: *\nPin: release o=Debian\nPin-Priority: 1001\n' >"$work/prefs"
    echo "images: pepper-base:bookworm from Debian's packages (once per machine)"
    if ! compgen -G "/var/lib/apt/lists/*_Packages" >/dev/null; then
        apt-get update -q >/dev/null   # a fresh machine: no package lists yet
    fi
    apt-get install -q -y --download-only --no-install-recommends -o Dir::State::status="$work/status" \
        -o Dir::Cache::archives="$work/debs" -o Dir::Etc::preferences="$work/prefs" \
        -o Dir::Etc::preferencesparts="$work/none" python3 nodejs >"$work/apt.log" 2>&1 \
        || { tail -20 "$work/apt.log" >&2; echo "images/build.sh: apt-get failed (run apt-get update first)" >&2; exit 1; }
    for deb in "$work"/debs/*.deb; do
        case "$(basename "$deb")" in dpkg_*|tar_*) continue;; esac   # the package tools: never run in a bot's box
        dpkg-deb -x "$deb" "$work/root"
    done
    rm -rf "$work"/root/usr/share/{doc,man,info,lintian}
    mkdir -p "$work"/root/{tmp,bot,run/pepper} && chmod 1777 "$work/root/tmp"
    tar -C "$work/root" -c . | docker import -c 'ENV PATH=/usr/local/bin:/usr/bin:/bin LANG=C.UTF-8' - pepper-base:bookworm >/dev/null
    rm -rf "$work"
    trap - EXIT
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
