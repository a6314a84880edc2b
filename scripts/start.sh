#!/usr/bin/env bash
# `npm start`: builds, then becomes the dev runner (src/bin/dev.ts) through exec, so that the runner is npm's own
# child: npm forwards SIGINT and SIGTERM to its child only, and a shell between them would die of the signal and leave
# the runner, Postgres and Temporal running. The runner also stops when npm itself dies (SIGHUP, SIGKILL).
# MOS_SKIP_BUILD=1 skips the build, for a checkout built already (the tests that start npm start).
set -euo pipefail
cd "$(dirname "$0")/.."
if [ "${MOS_SKIP_BUILD:-}" != 1 ]; then
  npm run --silent build &
  build=$!
  # A signal during the build stops the build and npm start with it.
  trap 'kill -TERM "$build" 2>/dev/null || true; wait "$build" || true; exit 143' INT TERM HUP
  wait "$build"
  trap - INT TERM HUP
fi
exec bash scripts/on-node.sh node dist/src/bin/dev.js
