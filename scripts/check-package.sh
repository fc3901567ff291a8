#!/usr/bin/env bash
# shellcheck disable=SC2015  # ok only prints, so A && ok || fail is an if-then-else
# Builds the Debian package (`make package`) and checks it, as CI does after
# the suites (.ci/run):
#   - its files (dpkg-deb -c): bin/ikigai, the thirteen core tools and nothing
#     else in libexec/ikigai, the man page, the bash completion, the docs,
#     all under /usr and owned by root; no test, test helper or benchmark;
#   - its metadata (dpkg-deb -I): name, version from CMakeLists.txt's
#     project(), architecture, maintainer, description, computed Depends;
#   - that it works unpacked (dpkg -x) into a scratch root: the installed
#     ikigai finds its thirteen tools in <root>/usr/libexec/ikigai and runs one.
# Usage: scripts/check-package.sh [DEB]   (with DEB, checks it without building)
set -euo pipefail
deb=""
[[ $# -ge 1 ]] && deb=$(realpath "$1")
cd "$(dirname "$0")/.."

failures=0
fail() {
  echo "FAIL  $*"
  failures=$((failures + 1))
}
ok() { echo "ok    $*"; }

if [[ -z $deb ]]; then
  log=$(mktemp)
  make --no-print-directory package JOBS="${JOBS:-2}" | tee "$log"
  deb=$(grep -E '^/.*\.deb$' "$log" | tail -n 1)
  rm -f "$log"
fi
[[ -n $deb && -f $deb ]] || { echo "FAIL  no package built (make package printed no .deb path)"; exit 1; }
echo "Checking $deb"

tools=(bash file-read file-write file-edit glob grep task task_output kill_shell ask_user todo_write
       web_fetch web_search)
version=$(sed -nE 's/^project\(ikigai VERSION ([0-9.]+).*/\1/p' CMakeLists.txt)
[[ -n $version ]] || fail "no version in CMakeLists.txt's project()"

# --- Contents -----------------------------------------------------------
listing=$(dpkg-deb -c "$deb")
paths=$(awk '{print $6}' <<<"$listing" | sed 's|^\./|/|')
has() { grep -qxF -- "$1" <<<"$paths"; }
wanted=(/usr/bin/ikigai /usr/share/man/man1/ikigai.1.gz
  /usr/share/bash-completion/completions/ikigai
  /usr/share/doc/ikigai/README.md /usr/share/doc/ikigai/copyright
  /usr/share/doc/ikigai/docs/configuration.md /usr/share/doc/ikigai/docs/security.md
  /usr/share/doc/ikigai/docs/tool-protocol.md)
for t in "${tools[@]}"; do wanted+=("/usr/libexec/ikigai/$t-tool"); done
for path in "${wanted[@]}"; do
  if has "$path"; then ok "contains $path"; else fail "missing $path"; fi
done
for page in docs/*.md; do
  has "/usr/share/doc/ikigai/$page" || fail "missing /usr/share/doc/ikigai/$page"
done
extra=$(grep -E '^/usr/libexec/ikigai/.' <<<"$paths" | grep -vxF -f <(printf '/usr/libexec/ikigai/%s-tool\n' "${tools[@]}") || true)
[[ -z $extra ]] && ok "libexec/ikigai holds the thirteen tools and nothing else" ||
  fail "unexpected files in libexec/ikigai: $extra"
unwanted=$(grep -E '_tests?$|/tests?/|bench|escape_helper|_test\.|fuzz|\.a$|\.o$|/include/' <<<"$paths" || true)
[[ -z $unwanted ]] && ok "no test binary, test helper or benchmark" ||
  fail "test or build files in the package: $unwanted"
outside=$(grep -vE '^/$|^/usr(/|$)' <<<"$paths" || true)
[[ -z $outside ]] && ok "everything under /usr" || fail "files outside /usr: $outside"
grep -q '/usr/local' <<<"$paths" && fail "files under /usr/local"
notroot=$(awk '$2 != "root/root"' <<<"$listing")
[[ -z $notroot ]] && ok "owned by root" || fail "not owned by root/root: $notroot"
for exe in /usr/bin/ikigai $(printf '/usr/libexec/ikigai/%s-tool ' "${tools[@]}"); do
  mode=$(awk -v p=".$exe" '$6 == p {print $1}' <<<"$listing")
  [[ $mode == -rwxr-xr-x ]] || fail "$exe has mode '$mode', wanted -rwxr-xr-x"
done

# --- Metadata -----------------------------------------------------------
field() { dpkg-deb -f "$deb" "$1"; }
[[ $(field Package) == ikigai ]] && ok "Package: ikigai" || fail "Package: $(field Package)"
[[ $(field Version) == "$version" ]] && ok "Version: $version" ||
  fail "Version: '$(field Version)', wanted '$version' (project() in CMakeLists.txt)"
arch=$(dpkg --print-architecture)
[[ $(field Architecture) == "$arch" ]] && ok "Architecture: $arch" ||
  fail "Architecture: '$(field Architecture)', wanted $arch"
[[ $(field Maintainer) =~ ^.+\ \<.+@.+\>$ ]] && ok "Maintainer: $(field Maintainer)" ||
  fail "Maintainer: '$(field Maintainer)' is not 'Name <address>'"
[[ $(field Description) == *"coding agent"* ]] && ok "Description" ||
  fail "Description: '$(field Description)'"
depends=$(field Depends)
for lib in libc6 libcurl4 libedit2 libstdc++6; do
  grep -qE "(^|, )${lib//+/\\+}( |,|$)" <<<"$depends" || fail "Depends lacks $lib: '$depends'"
done
ok "Depends: $depends"
# The Depends resolve on this system (a simulation: nothing is installed).
if out=$(apt-get install -s -qq --no-install-recommends "$deb" 2>&1); then
  ok "apt-get install (simulated) resolves its dependencies"
else
  fail "apt-get install (simulated) fails: $out"
fi
dpkg-deb -I "$deb" >/dev/null || fail "dpkg-deb -I cannot read the control file"

# --- Unpacked into a scratch root ---------------------------------------
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
root=$scratch/root
mkdir -p "$root" "$scratch/home" "$scratch/work"
dpkg -x "$deb" "$root"
gzip -t "$root/usr/share/man/man1/ikigai.1.gz" || fail "the man page is not valid gzip"
warnings=$(zcat "$root/usr/share/man/man1/ikigai.1.gz" | groff -man -Tutf8 -ww -z 2>&1) ||
  fail "the packaged man page does not render"
[[ -z $warnings ]] || fail "the packaged man page renders with warnings: $warnings"
bash -n "$root/usr/share/bash-completion/completions/ikigai" || fail "the completion is not valid bash"
run() { (cd "$scratch/work" && env -i PATH=/usr/bin:/bin HOME="$scratch/home" "$@"); }

got=$(run "$root/usr/bin/ikigai" --version)
[[ $got == "ikigai $version" ]] && ok "--version: $got" || fail "--version: '$got'"
listed=$(run "$root/usr/bin/ikigai" tool list 2>&1) || fail "ikigai tool list failed: $listed"
for t in "${tools[@]}"; do
  name=${t//-/_}
  if grep -qxF "  $name ($root/usr/libexec/ikigai/$t-tool)" <<<"$listed"; then
    ok "tool list finds $name in <root>/usr/libexec/ikigai"
  else
    fail "tool list does not show $name from $root/usr/libexec/ikigai:"$'\n'"$listed"
  fi
done
grep -q '^Debug:' <<<"$listed" && fail "discovery problems: $listed"
answer=$(run "$root/usr/bin/ikigai" tool call bash '{"command": "echo packaged"}') ||
  fail "tool call bash failed: $answer"
grep -q '"tool_success": true' <<<"$answer" && grep -q 'packaged' <<<"$answer" &&
  ok "tool call bash runs the packaged tool" || fail "tool call bash: $answer"

if ((failures > 0)); then
  echo "$failures package check(s) failed: $deb"
  exit 1
fi
echo "Package checked: $deb"
