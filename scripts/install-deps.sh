#!/usr/bin/env bash
# Installs the Debian packages ikigai needs to build and test, if missing.
# Safe to run again: it does nothing when everything is there.
set -euo pipefail

# Usage: install-deps.sh [bench]   (bench: also the benchmarks' peers)
packages=(
  # build
  cmake g++ make pkg-config git
  nlohmann-json3-dev libre2-dev libcli11-dev
  libcurl4-openssl-dev libssl-dev libedit-dev libcpp-httplib-dev libgumbo-dev
  # make package (dpkg-shlibdeps computes the package's Depends)
  dpkg-dev
  # tests (groff-base: the man page is rendered with warnings as errors)
  googletest libgtest-dev libgmock-dev
  clang-14 libclang-rt-14-dev  # make fuzz: libFuzzer and the sanitizers' runtimes
  python3 jq util-linux procps groff-base
)
# The tests' npm peers (package.json: aimock, the MCP SDK, server-everything
# and server-filesystem) run on Node.js >= 20; the MCP conformance suite needs
# Node 22, which package.json installs locally (node_modules/.bin/node);
# a Node.js installed another way (NodeSource) provides both commands.
command -v node >/dev/null || packages+=(nodejs)
command -v npm >/dev/null || packages+=(npm)
if [ "${1:-}" = bench ]; then
  packages+=(hyperfine ripgrep fd-find libboost-dev findutils grep pandoc)
fi

# The npm test peers of package-lock.json, in node_modules/, if missing.
npm_peers() {
  local root
  root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
  local name missing=0
  for name in $(jq -r '.devDependencies | keys[]' "$root/package.json"); do
    [ -f "$root/node_modules/$name/package.json" ] || missing=1
  done
  [ "$missing" = 0 ] && return 0
  echo "Installing the npm test peers into $root/node_modules"
  (cd "$root" && npm ci --loglevel=error --no-audit --no-fund)
}

missing=()
for p in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done
[ ${#missing[@]} -eq 0 ] && { npm_peers; exit 0; }

echo "Installing missing Debian packages: ${missing[*]}"
sudo=()
if [ "$(id -u)" -ne 0 ]; then
  command -v sudo >/dev/null || { echo "error: run as root or install sudo" >&2; exit 1; }
  sudo=(sudo)
fi
export DEBIAN_FRONTEND=noninteractive
"${sudo[@]}" apt-get update -qq
"${sudo[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}"
npm_peers
