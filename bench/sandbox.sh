#!/usr/bin/env bash
# Issue 9's benchmark: a tool round trip bare, under sandbox tier 1 (Landlock
# + seccomp) and tier 2 (namespaces too), side by side, with the ratios.
# Goals: tier 1 under +5%, tier 2 under +1 ms.
#
#   bench/sandbox.sh [BUILD_DIR]      (default: build)
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build}
[ -x "$build/bench/sandbox_bench" ] || { echo "build first: make build" >&2; exit 1; }
"$build/bench/sandbox_bench" "$PWD/$build/libexec/ikigai"
