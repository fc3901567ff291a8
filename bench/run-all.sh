#!/usr/bin/env bash
# Every benchmark, one after another.  bench/run-all.sh [BUILD_DIR]
set -euo pipefail
cd "$(dirname "$0")"
./tool-roundtrip.sh "$@"
./host.sh "$@"
./agent.sh "$@"
./long-session.sh "$@"
./prompt-cache.sh "$@"
./repl.sh "$@"
./search.sh "$@"
./sandbox.sh "$@"
./background.sh "$@"
./web-fetch.sh "$@"
./subagent.sh "$@"
./mcp-serve.sh "$@"
./mcp-client.sh "$@"
