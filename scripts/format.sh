#!/usr/bin/env bash
# Checks (default) or applies (--fix) clang-format on every C++ file of the repository: tracked ones, and new ones
# not yet added (untracked files that .gitignore does not exclude), so that a file is formatted before its first
# commit.
set -euo pipefail
cd "$(dirname "$0")/.."
files=$(git ls-files --cached --others --exclude-standard '*.cpp' '*.h')
if [ "${1:-}" = "--fix" ]; then
  clang-format -i $files
  exit 0
fi
bad=()
for file in $files; do
  clang-format --dry-run --Werror "$file" >/dev/null 2>&1 || bad+=("$file")
done
if [ ${#bad[@]} -gt 0 ]; then
  echo "not formatted (run: bash scripts/format.sh --fix): ${bad[*]}" >&2
  exit 1
fi
echo "clang-format: $(echo "$files" | wc -w) files formatted"
