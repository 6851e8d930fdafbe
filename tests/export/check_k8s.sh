#!/usr/bin/env bash
# CTest export.kubernetes_schema: `sailor export --format kubernetes` on the 3-zone, 3-GPU-type
# plan of the default scenario, written with --output, then checked against Kubernetes' OpenAPI
# schemas by check_k8s.mjs (npm packages kubernetes-models and yaml, installed into
# tests/export/node_modules by scripts/install-deps from the committed lockfile; nothing is
# downloaded here). Skips (exit 77) with a message when node or those modules are absent.
# Usage: check_k8s.sh SAILOR_BINARY SOURCE_DIR
set -euo pipefail
sailor=$1
src=$2
here="$src/tests/export"
if ! command -v node >/dev/null 2>&1; then
  echo "SKIP: node is not installed (scripts/install-deps installs nodejs and npm)"
  exit 77
fi
if [[ ! -d "$here/node_modules/kubernetes-models" || ! -d "$here/node_modules/yaml" ]]; then
  echo "SKIP: $here/node_modules lacks kubernetes-models or yaml (run scripts/install-deps," \
    "which runs npm ci there)"
  exit 77
fi
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
"$sailor" export --plan "$src/tests/data/export/three-zones.json" \
  --scenario "$src/resources/scenarios/default.json" --job "$src/resources/jobs/default.json" \
  --format kubernetes --cluster "$src/resources/clusters/default.json" --output "$out" >/dev/null
node "$here/check_k8s.mjs" "$out/sailor.yaml"
# The check must be able to fail: a Job whose completionMode is not a string is refused.
sed 's/completionMode: "Indexed"/completionMode: 3/' "$out/sailor.yaml" >"$out/broken.yaml"
if node "$here/check_k8s.mjs" "$out/broken.yaml" >/dev/null 2>&1; then
  echo "FAIL: check_k8s.mjs accepted a Job with completionMode 3"
  exit 1
fi
echo "kubernetes manifests valid; a broken one refused"
