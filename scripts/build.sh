#!/usr/bin/env bash
# Configures (once) and builds a preset: default, asan, libcxx or fuzz. Extra arguments go to cmake --build.
set -euo pipefail
cd "$(dirname "$0")/.."
preset="${1:-default}"
shift || true
case "$preset" in
  default|asan|libcxx|fuzz) ;;
  *) echo "usage: $0 [default|asan|libcxx|fuzz] [cmake --build arguments]" >&2; exit 2 ;;
esac
bash scripts/deps.sh $([ "$preset" = default ] || echo --full)
if command -v ninja >/dev/null 2>&1; then export CMAKE_GENERATOR=Ninja; fi
dir=build
[ "$preset" = default ] || dir="build-$preset"
if [ ! -f "$dir/CMakeCache.txt" ]; then
  cmake --preset "$preset" >/dev/null
fi
cmake --build --preset "$preset" "$@"
