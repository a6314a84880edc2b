#!/usr/bin/env bash
# Prints the folder of a Node of the version in .node-version (the supported LTS the project, its Dockerfile and CI
# run on), for the front of PATH:   export PATH="$(bash scripts/setup-node.sh):$PATH"
# The `node` already on PATH when it is that major version; else the official build the npm registry serves as the
# package node-<os>-<arch>@<version> (npm checks its integrity), unpacked once per machine into the user-level cache
# (~/.cache/model-orchestration, outside the checkout, so fresh clones reuse it).
set -euo pipefail
cd "$(dirname "$0")/.."
version="$(tr -d '[:space:]' < .node-version)"
current="$(node --version 2>/dev/null || true)"
if [ "${current%%.*}" = "v${version%%.*}" ]; then dirname "$(command -v node)"; exit 0; fi

case "$(uname -s)" in Linux) os=linux ;; Darwin) os=darwin ;; *) echo "no Node package for $(uname -s); install Node $version" >&2; exit 1 ;; esac
case "$(uname -m)" in x86_64 | amd64) arch=x64 ;; aarch64 | arm64) arch=arm64 ;; *) echo "no Node package for $(uname -m); install Node $version" >&2; exit 1 ;; esac
cache_dir="${XDG_CACHE_HOME:-$HOME/.cache}/model-orchestration"
target="$cache_dir/node-v$version-$os-$arch"
if [ ! -x "$target/bin/node" ]; then
  echo "Fetching Node $version (node-$os-$arch from the npm registry, once per machine; the node on PATH is ${current:-missing})..." >&2
  mkdir -p "$cache_dir"
  work="$(mktemp -d "$cache_dir/node-fetch.XXXXXX")"
  trap 'rm -rf "$work"' EXIT
  tarball="$(cd "$work" && npm pack --silent "node-$os-$arch@$version")"
  tar -xzf "$work/$tarball" -C "$work"
  "$work/package/bin/node" --version > /dev/null
  rm -rf "$target" && mv "$work/package" "$target"
  echo "Node $version ready at $target" >&2
fi
echo "$target/bin"
