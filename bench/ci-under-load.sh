#!/usr/bin/env bash
# Runs CI (`bash .ci/run`, as CI does: CI=true, no stdin) on fresh clones of this checkout's HEAD, N times in a row,
# and prints each run's result and time. With --load, each run has a busy neighbour: one core kept busy by a
# CPU hog and 30 idle connections held open on the same Postgres (the conditions CI must pass under).
#   bash bench/ci-under-load.sh [runs=1] [--load] [--keep] [--rev=REV]   (REV: a commit of this checkout; default HEAD)
set -uo pipefail
cd "$(dirname "$0")/.."
runs=1 load=0 keep=0 rev=HEAD
for arg in "$@"; do
  case "$arg" in
    --load) load=1 ;;
    --keep) keep=1 ;;
    --rev=*) rev="${arg#--rev=}" ;;
    [0-9]*) runs="$arg" ;;
    *) echo "usage: bash bench/ci-under-load.sh [runs] [--load] [--keep] [--rev=REV]" >&2; exit 2 ;;
  esac
done
[ -d node_modules/pg ] || { echo "run npm ci first (the idle-connection holder uses this checkout's pg)" >&2; exit 2; }
head=$(git rev-parse --short "$rev") || exit 2
results=()
failed=0
for i in $(seq 1 "$runs"); do
  dir=$(mktemp -d /tmp/ci-clone-XXXXXX)
  git clone -q . "$dir/repo" && git -C "$dir/repo" checkout -q "$head"
  helpers=()
  if [ "$load" = 1 ]; then
    node -e 'for (;;) {}' & helpers+=($!)
    node bench/tools/hold-connections.mjs 30 & helpers+=($!)
  fi
  log="$dir/ci.log"
  started=$(date +%s)
  (cd "$dir/repo" && CI=true bash .ci/run < /dev/null > "$log" 2>&1)
  code=$?
  seconds=$(( $(date +%s) - started ))
  for pid in "${helpers[@]}"; do kill "$pid" 2> /dev/null; wait "$pid" 2> /dev/null; done
  summary=$(grep -E '^Tests:' "$log" | tr -s ' ' | paste -sd ';' -)
  line="run $i/$runs at $head: exit $code in ${seconds}s$([ "$load" = 1 ] && echo ' (loaded: CPU hog + 30 idle Postgres connections)') — ${summary:-no jest summary}"
  echo "$line"
  results+=("$line")
  if [ "$code" != 0 ]; then failed=$((failed + 1)); echo "  log kept at $log"; keep_this=1; else keep_this=$keep; fi
  [ "$keep_this" = 1 ] || rm -rf "$dir"
done
echo; printf '%s\n' "${results[@]}"
echo "$((runs - failed)) of $runs runs passed"
[ "$failed" = 0 ]
