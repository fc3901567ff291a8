#!/usr/bin/env bash
# Installs the Debian packages ikigai needs to build and test, if missing.
# Safe to run again: it does nothing when everything is there.
set -euo pipefail

# Usage: install-deps.sh [bench]   (bench: also the benchmarks' peers)
packages=(
  # build
  cmake g++ make pkg-config git
  nlohmann-json3-dev libre2-dev
  # tests
  googletest libgtest-dev libgmock-dev
  python3 jq util-linux procps
)
if [ "${1:-}" = bench ]; then
  packages+=(hyperfine ripgrep fd-find libboost-dev findutils grep)
fi

missing=()
for p in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done
[ ${#missing[@]} -eq 0 ] && exit 0

echo "Installing missing Debian packages: ${missing[*]}"
sudo=()
if [ "$(id -u)" -ne 0 ]; then
  command -v sudo >/dev/null || { echo "error: run as root or install sudo" >&2; exit 1; }
  sudo=(sudo)
fi
export DEBIAN_FRONTEND=noninteractive
"${sudo[@]}" apt-get update -qq
"${sudo[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}"
