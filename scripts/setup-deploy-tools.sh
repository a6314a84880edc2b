#!/usr/bin/env bash
# Makes the deployment checking tools exist under .tools/bin:
#   helm          helm.sh/helm/v3's CLI (lint, template)
#   deploy-check  deploy/checker: decodes rendered manifests strictly into their Kubernetes, KEDA and
#                 Prometheus-operator API types
# Each comes from, in order: one already in .tools/bin (deploy-check: only if newer than its source), an override
# variable (HELM_BIN, DEPLOY_CHECK_BIN), the user-level cache (~/.cache/model-orchestration, outside the checkout,
# like the Temporal binaries; the checker's entry is keyed by a hash of its source), or a build with Go from the
# module proxy.
set -euo pipefail
cd "$(dirname "$0")/.."
cache_dir="${XDG_CACHE_HOME:-$HOME/.cache}/model-orchestration"
mkdir -p .tools/bin "$cache_dir"

go_bin="$(command -v go || true)"
[ -z "$go_bin" ] && [ -x /usr/local/go/bin/go ] && go_bin=/usr/local/go/bin/go
need_go() {
  [ -n "$go_bin" ] && return 0
  echo "$1 is missing and Go is not installed, so it cannot be built. Install Go (https://go.dev/dl) or set $2." >&2
  exit 1
}

helm_version="${HELM_VERSION:-v3.21.4}"
helm_cached="$cache_dir/helm-$helm_version"
if [ ! -x .tools/bin/helm ]; then
  if [ -n "${HELM_BIN:-}" ]; then
    ln -sf "$(realpath "$HELM_BIN")" .tools/bin/helm
  else
    if [ ! -x "$helm_cached" ]; then
      need_go helm HELM_BIN
      echo "Building helm $helm_version with $go_bin (takes several minutes, once per machine)..." >&2
      build_dir="$(mktemp -d)"
      GOBIN="$build_dir" CGO_ENABLED=0 "$go_bin" install "helm.sh/helm/v3/cmd/helm@$helm_version"
      cp "$build_dir/helm" "$helm_cached.tmp" && mv "$helm_cached.tmp" "$helm_cached"
      rm -rf "$build_dir"
    fi
    cp "$helm_cached" .tools/bin/helm
  fi
fi

# The checker's cache key: its source, so a change to it builds a new one.
checker_hash="$(cat deploy/checker/go.mod deploy/checker/go.sum deploy/checker/*.go | sha256sum | cut -c1-12)"
checker_cached="$cache_dir/deploy-check-$checker_hash"
if [ -n "${DEPLOY_CHECK_BIN:-}" ]; then
  ln -sf "$(realpath "$DEPLOY_CHECK_BIN")" .tools/bin/deploy-check
elif [ ! -x "$checker_cached" ]; then
  need_go deploy-check DEPLOY_CHECK_BIN
  echo "Building deploy-check with $go_bin (once per change of deploy/checker)..." >&2
  (cd deploy/checker && CGO_ENABLED=0 "$go_bin" build -o "$checker_cached.tmp" .)
  mv "$checker_cached.tmp" "$checker_cached"
  cp "$checker_cached" .tools/bin/deploy-check
elif ! cmp -s "$checker_cached" .tools/bin/deploy-check 2>/dev/null; then
  cp "$checker_cached" .tools/bin/deploy-check
fi
