#!/usr/bin/env bash
# Makes .tools/bin/toxiproxy-server exist: the TCP proxy the fault tests put between the service and
# Postgres, the JWKS endpoint and the AWS stand-in. Same order as setup-temporal.sh: an existing binary,
# $TOXIPROXY_SERVER, the user-level cache, then a build with `go install` (a few seconds).
set -euo pipefail
cd "$(dirname "$0")/.."
version="${TOXIPROXY_VERSION:-v2.12.0}"
target=".tools/bin/toxiproxy-server"
cache="${XDG_CACHE_HOME:-$HOME/.cache}/model-orchestration/toxiproxy-server-$version"

[ -x "$target" ] && exit 0
mkdir -p .tools/bin

if [ -n "${TOXIPROXY_SERVER:-}" ]; then
  [ -x "$TOXIPROXY_SERVER" ] || { echo "TOXIPROXY_SERVER=$TOXIPROXY_SERVER is not an executable file" >&2; exit 1; }
  ln -sf "$(realpath "$TOXIPROXY_SERVER")" "$target"; exit 0
fi

if [ -x "$cache" ]; then cp "$cache" "$target"; exit 0; fi

go_bin="$(command -v go || true)"
[ -z "$go_bin" ] && [ -x /usr/local/go/bin/go ] && go_bin=/usr/local/go/bin/go
if [ -z "$go_bin" ]; then
  cat >&2 <<MSG
Toxiproxy is missing and Go is not installed, so it cannot be built.
Either install Go (https://go.dev/dl) and run 'npm run setup:toxiproxy' again,
or point TOXIPROXY_SERVER at an existing 'toxiproxy-server' binary (https://github.com/Shopify/toxiproxy).
MSG
  exit 1
fi

echo "Building toxiproxy-server $version with $go_bin (once)..." >&2
build_dir="$(mktemp -d)"
trap 'rm -rf "$build_dir"' EXIT
GOBIN="$build_dir" "$go_bin" install "github.com/Shopify/toxiproxy/v2/cmd/server@$version"
mkdir -p "$(dirname "$cache")"
cp "$build_dir/server" "$cache"
cp "$build_dir/server" "$target"
echo "toxiproxy-server ready at $target (cached at $cache)" >&2
