#!/usr/bin/env bash
# Issue 4's benchmark: discovery (6 core tools; 200 copies of a tool) against
# the same processes run one after another, and the executor's overhead
# against the bare round trip of one call.
#
#   bench/host.sh [BUILD_DIR]      (default: build)
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build}
[ -x "$build/bench/host_bench" ] || { echo "build first: make build" >&2; exit 1; }
"$build/bench/host_bench" "$PWD/$build/libexec/ikigai"
