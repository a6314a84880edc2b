#!/usr/bin/env bash
# Makes the Temporal binaries exist under .tools/bin.
#   setup-temporal.sh          the CLI (`temporal server start-dev`: a whole dev server with the Web UI)
#   setup-temporal.sh server   the production-shaped server: temporal-server, temporal-sql-tool, temporal-ui-server
#   setup-temporal.sh all      both
# Each binary comes from, in order: one already in .tools/bin, an override variable, the user-level cache
# (~/.cache/model-orchestration, kept outside the checkout so fresh clones reuse it), or `go install`.
set -euo pipefail
cd "$(dirname "$0")/.."
what="${1:-cli}"
cache_dir="${XDG_CACHE_HOME:-$HOME/.cache}/model-orchestration"
mkdir -p .tools/bin

go_bin="$(command -v go || true)"
[ -z "$go_bin" ] && [ -x /usr/local/go/bin/go ] && go_bin=/usr/local/go/bin/go

# ensure <target name> <override variable> <go package> <version> <binary name go install writes>
ensure() {
  local name="$1" override="$2" package="$3" version="$4" built="$5"
  local target=".tools/bin/$name" cached="$cache_dir/$name-$version"
  [ -x "$target" ] && return 0
  if [ -n "${!override:-}" ]; then
    [ -x "${!override}" ] || { echo "$override=${!override} is not an executable file" >&2; exit 1; }
    ln -sf "$(realpath "${!override}")" "$target"; return 0
  fi
  if [ -x "$cached" ]; then cp "$cached" "$target"; return 0; fi
  if [ -z "$go_bin" ]; then
    cat >&2 <<MSG
$name is missing and Go is not installed, so it cannot be built.
Either install Go (https://go.dev/dl) and run 'npm run setup:temporal' again,
or point $override at an existing binary (https://docs.temporal.io).
MSG
    exit 1
  fi
  echo "Building $name $version with $go_bin (several minutes, once per machine: see README, \"Two commands\")..." >&2
  local build_dir started=$SECONDS
  build_dir="$(mktemp -d)"
  # Go is silent while it compiles: say every 30 s (SETUP_PROGRESS_SECONDS) that the build goes on.
  ( while sleep "${SETUP_PROGRESS_SECONDS:-30}" && kill -0 $$ 2>/dev/null; do echo "  ... still building $name: $(( (SECONDS - started) / 60 )) min $(( (SECONDS - started) % 60 )) s so far" >&2; done ) &
  ticker=$!
  trap 'kill "$ticker" 2>/dev/null || true' EXIT
  GOBIN="$build_dir" "$go_bin" install "$package@$version" || { kill "$ticker" 2>/dev/null; exit 1; }
  kill "$ticker" 2>/dev/null || true
  echo "$name built in $(( (SECONDS - started) / 60 )) min $(( (SECONDS - started) % 60 )) s" >&2
  mkdir -p "$cache_dir"
  cp "$build_dir/$built" "$cached.tmp" && mv "$cached.tmp" "$cached"
  cp "$cached" "$target"
  rm -rf "$build_dir"
  echo "$name ready at $target (cached at $cached)" >&2
}

server_version="${TEMPORAL_SERVER_VERSION:-v1.29.1}"
if [ "$what" = cli ] || [ "$what" = all ]; then
  ensure temporal TEMPORAL_CLI github.com/temporalio/cli/cmd/temporal "${TEMPORAL_CLI_VERSION:-v1.5.1}" temporal
fi
if [ "$what" = server ] || [ "$what" = all ]; then
  ensure temporal-server TEMPORAL_SERVER_BIN go.temporal.io/server/cmd/server "$server_version" server
  ensure temporal-sql-tool TEMPORAL_SQL_TOOL_BIN go.temporal.io/server/cmd/tools/sql "$server_version" sql
  ensure temporal-ui-server TEMPORAL_UI_SERVER_BIN github.com/temporalio/ui-server/v2/cmd/server "${TEMPORAL_UI_VERSION:-v2.42.1}" server
fi
case "$what" in cli|server|all) ;; *) echo "usage: setup-temporal.sh [cli|server|all]" >&2; exit 2 ;; esac
