#!/usr/bin/env bash
# Makes .tools/bin/temporal exist. The CLI's `server start-dev` is a whole Temporal server with the Web UI.
# Order: an existing binary, $TEMPORAL_CLI, the user-level cache, then a build with `go install`.
set -euo pipefail
cd "$(dirname "$0")/.."
version="${TEMPORAL_CLI_VERSION:-v1.5.1}"
target=".tools/bin/temporal"
cache="${XDG_CACHE_HOME:-$HOME/.cache}/model-orchestration/temporal-$version"

[ -x "$target" ] && exit 0
mkdir -p .tools/bin

if [ -n "${TEMPORAL_CLI:-}" ]; then
  [ -x "$TEMPORAL_CLI" ] || { echo "TEMPORAL_CLI=$TEMPORAL_CLI is not an executable file" >&2; exit 1; }
  ln -sf "$(realpath "$TEMPORAL_CLI")" "$target"; exit 0
fi

if [ -x "$cache" ]; then cp "$cache" "$target"; exit 0; fi

go_bin="$(command -v go || true)"
[ -z "$go_bin" ] && [ -x /usr/local/go/bin/go ] && go_bin=/usr/local/go/bin/go
if [ -z "$go_bin" ]; then
  cat >&2 <<MSG
The Temporal CLI is missing and Go is not installed, so it cannot be built.
Either install Go (https://go.dev/dl) and run 'npm run setup:temporal' again,
or point TEMPORAL_CLI at an existing 'temporal' binary (https://docs.temporal.io/cli).
MSG
  exit 1
fi

echo "Building the Temporal CLI $version with $go_bin (takes a few minutes, once)..." >&2
build_dir="$(mktemp -d)"
trap 'rm -rf "$build_dir"' EXIT
GOBIN="$build_dir" "$go_bin" install "github.com/temporalio/cli/cmd/temporal@$version"
mkdir -p "$(dirname "$cache")"
cp "$build_dir/temporal" "$cache"
cp "$build_dir/temporal" "$target"
echo "Temporal CLI ready at $target (cached at $cache)" >&2
