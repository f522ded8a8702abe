#!/usr/bin/env bash
# Runs clang-tidy (.clang-tidy) on every source of the core, using build/compile_commands.json.
set -euo pipefail
cd "$(dirname "$0")/.."
[ -f build/compile_commands.json ] || bash scripts/build.sh default >/dev/null
status=0
for file in $(git ls-files --cached --others --exclude-standard 'core/*.cpp'); do
  clang-tidy -p build --quiet "$file" 2>/dev/null || status=1
done
[ $status -eq 0 ] && echo "clang-tidy: core clean"
exit $status
