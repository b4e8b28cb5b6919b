#!/usr/bin/env bash
# Build pepper-cluster:latest (images/Dockerfile.cluster; docs/cluster.md): pepper-base:bookworm (images/build.sh)
# with the project and its [ray] extra installed by this machine's Python 3.11 pip into the image's dist-packages.
# Usage: images/build-cluster.sh [PYTHON]
set -euo pipefail
cd "$(dirname "$0")/.."
PY=${1:-python3.11}
docker image inspect pepper-base:bookworm >/dev/null 2>&1 || images/build.sh "$PY"
ctx=$(mktemp -d /tmp/pepper-cluster.XXXXXX)
trap 'rm -rf "$ctx"' EXIT
"$PY" -m pip install --quiet --disable-pip-version-check --target "$ctx/site" ./sdk/python '.[ray]'
mv "$ctx/site/bin" "$ctx/bin"   # the console scripts (pepper, ray)
sed -i '1s|^#!.*|#!/usr/bin/python3|' "$ctx"/bin/*
cp images/Dockerfile.cluster "$ctx/Dockerfile"
DOCKER_BUILDKIT=0 docker build --quiet -t pepper-cluster:latest "$ctx" >/dev/null
echo "images: pepper-cluster:latest"
