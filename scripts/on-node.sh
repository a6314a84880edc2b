#!/usr/bin/env bash
# Runs a command with the Node of .node-version first on PATH (fetched once by setup-node.sh when the node on PATH is
# another major), so `npm start`, `npm test` and `npm run test:server` run on the supported LTS whichever node ran npm.
set -euo pipefail
node_bin="$(bash "$(dirname "$0")/setup-node.sh")"
PATH="$node_bin:$PATH" exec "$@"
