#!/usr/bin/env bash
# Runs clang-tidy (.clang-tidy) on every source of the core, using build/compile_commands.json, one file per CPU at
# a time (TIDY_JOBS to change it).
#
# A file found clean is remembered in ${XDG_CACHE_HOME:-~/.cache}/loopwire-tidy/ under a digest of what decides
# clang-tidy's verdict: its version, .clang-tidy, the file's path in the repository and the file as preprocessed
# with its compile flags (so every header it includes counts). Such a file is not checked again; anything that
# changes the digest checks it again, and a file with findings is never remembered. Preprocessing costs a tenth
# of checking. LW_TIDY_CACHE=0 checks everything.
set -euo pipefail
cd "$(dirname "$0")/.."
[ -f build/compile_commands.json ] || bash scripts/build.sh default >/dev/null
cache="${XDG_CACHE_HOME:-$HOME/.cache}/loopwire-tidy"
mkdir -p "$cache"
salt=$( (clang-tidy --version; cat .clang-tidy) | sha256sum | cut -c1-64)
export cache salt

# The compile command of each core source, as "file<TAB>command" lines, for the preprocessing.
commands=$(node -e '
  const entries = require(process.argv[1]);
  for (const entry of entries) {
    if (/\/core\/.*\.cpp$/.test(entry.file)) console.log(entry.file + "\t" + entry.directory + "\t" + entry.command);
  }' "$PWD/build/compile_commands.json")
export commands

check_file() {
  local file="$1"
  local line directory command
  line=$(grep -F -m1 "$PWD/$file	" <<<"$commands" || true)
  local digest=""
  if [ -n "$line" ] && [ "${LW_TIDY_CACHE:-1}" != 0 ]; then
    directory=$(cut -f2 <<<"$line")
    command=$(cut -f3 <<<"$line")
    # The same compiler and flags, preprocessing only (no line markers: their absolute paths differ per clone).
    command=$(sed -e 's/ -o [^ ]*//' -e 's/ -c / -E -P /' <<<"$command")
    digest=$( (echo "$salt $file"; cd "$directory" && eval "$command" 2>/dev/null) | sha256sum | cut -c1-64)
    [ -f "$cache/$digest" ] && return 0
  fi
  local findings
  if findings=$(clang-tidy -p build --quiet "$file" 2>/dev/null); then
    [ -z "$digest" ] || touch "$cache/$digest"
    return 0
  fi
  # Printed at once, so that files checked at the same time do not mix their lines.
  printf '== %s\n%s\n' "$file" "$findings"
  return 1
}
export -f check_file

files=$(git ls-files --cached --others --exclude-standard 'core/*.cpp')
if ! xargs -P "${TIDY_JOBS:-$(nproc)}" -n 1 bash -c 'check_file "$1"' _ <<<"$files"; then
  exit 1
fi
echo "clang-tidy: core clean ($(wc -l <<<"$files") files)"
