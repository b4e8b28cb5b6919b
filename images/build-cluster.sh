#!/usr/bin/env bash
# Build pepper-cluster:latest (images/Dockerfile.cluster; docs/cluster.md): pepper-base:bookworm (images/build.sh)
# with the project and its [ray] extra installed by this machine's Python 3.11 pip into the image's dist-packages.
# An image built from the same files (every file git tracks or would add, and the compiled engine's marker) is kept:
# --force builds it again anyway, e.g. for newer releases of Ray on PyPI.
# Usage: images/build-cluster.sh [--force] [PYTHON]
set -euo pipefail
cd "$(dirname "$0")/.."
force=; [ "${1:-}" = --force ] && { force=1; shift; }
PY=${1:-python3.11}
compiled_is_current() {   # every module in the build's marker, with the sha256 of its .py and .pxd as built
    [ -f referee/rules/_compiled_build.txt ] || return 1
    local module digest src
    while read -r module digest; do
        src=${module//.//}
        [ "$(cat "$src.py" "$src.pxd" 2>/dev/null | sha256sum | cut -d' ' -f1)" = "$digest" ] || return 1
    done <referee/rules/_compiled_build.txt
}
compiled=; compiled_is_current && compiled=1
inputs=
if git rev-parse --is-inside-work-tree >/dev/null 2>&1; then
    inputs=$( { git ls-files -z --cached --others --exclude-standard | xargs -0 sha256sum 2>/dev/null
                [ -z "$compiled" ] || cat referee/rules/_compiled_build.txt; "$PY" --version; } | sha256sum | cut -c1-64)
fi
built=$(docker image inspect -f '{{ index .Config.Labels "pepper.inputs" }}' pepper-cluster:latest 2>/dev/null || true)
if [ -z "$force" ] && [ -n "$inputs" ] && [ "$built" = "$inputs" ]; then
    echo "images: pepper-cluster:latest is up to date (built from these files; --force builds it again)"
    exit 0
fi
docker image inspect pepper-base:bookworm >/dev/null 2>&1 || images/build.sh "$PY"
ctx=$(mktemp -d /tmp/pepper-cluster.XXXXXX)
trap 'rm -rf "$ctx"' EXIT
# ray[default]: Ray's dashboard and job server, which KubeRay's probes and its RayJob's submitter use.
"$PY" -m pip install --quiet --disable-pip-version-check --target "$ctx/site" ./sdk/python '.[ray]' 'ray[default]'
mv "$ctx/site/bin" "$ctx/bin"   # the console scripts (pepper, ray)
# The compiled engine that `make install` built in this checkout (a wheel built by pip has none: its build has no
# Cython), copied in when it was built from today's sources: a node's referees run as `make arena`'s do.
if [ -n "$compiled" ]; then
    while read -r module _; do
        src=${module//.//}
        cp "$src".cpython-311-*.so "$ctx/site/$(dirname "$src")/"
    done <referee/rules/_compiled_build.txt
else
    echo "images/build-cluster.sh: note: the compiled engine is not built from these sources (make compiled): the" \
         "cluster's referees will run as pure Python, slower" >&2
fi
# bash, wget and grep: KubeRay starts every container with `/bin/bash -c` and probes Ray with `wget ... | grep`;
# /bin/sh (dash) and coreutils: Ray's job server runs a job's entrypoint through the shell.
# From Debian's packages, resolved and unpacked as images/build.sh does the base (no package tools in the image).
mkdir -p "$ctx/debs/partial" "$ctx/root"
: >"$ctx/status"
printf 'Package: *\nPin: release o=Debian\nPin-Priority: 1001\n' >"$ctx/prefs"
apt-get install -q -y --download-only --no-install-recommends -o Dir::State::status="$ctx/status" \
    -o Dir::Cache::archives="$ctx/debs" -o Dir::Etc::preferences="$ctx/prefs" \
    -o Dir::Etc::preferencesparts="$ctx/none" bash wget grep dash coreutils >"$ctx/apt.log" 2>&1 \
    || { tail -20 "$ctx/apt.log" >&2; echo "images/build-cluster.sh: apt-get failed (run apt-get update first)" >&2; exit 1; }
for deb in "$ctx"/debs/*.deb; do
    case "$(basename "$deb")" in dpkg_*|tar_*) continue;; esac
    dpkg-deb -x "$deb" "$ctx/root"
done
rm -rf "$ctx"/root/usr/share/{doc,man,info,lintian} "$ctx/debs"
[ -e "$ctx/root/bin/sh" ] || ln -s dash "$ctx/root/bin/sh"   # dash's maintainer script makes it on a Debian system
sed -i '1s|^#!.*|#!/usr/bin/python3|' "$ctx"/bin/*
cp images/Dockerfile.cluster "$ctx/Dockerfile"
DOCKER_BUILDKIT=0 docker build --quiet --label "pepper.inputs=$inputs" -t pepper-cluster:latest "$ctx" >/dev/null
echo "images: pepper-cluster:latest"
