#!/usr/bin/env bash
# Builds a preset (default: the Release build) and runs its whole test suite with CTest; for the default preset,
# then builds the Node addon for the Node on PATH and runs the JS suite (tests/js/, node:test); for asan, the JS
# suite also runs on the addon built with ASan and UBSan.
set -euo pipefail
cd "$(dirname "$0")/.."
preset="${1:-default}"
bash scripts/build.sh "$preset"
ctest --preset "$preset" -j2 --timeout 300
if [ "$preset" = default ]; then
  node scripts/build-addon.js --quiet
  # Files, not the folder: Node 22 and later take a folder argument as a module to run.
  node --test tests/js/*.test.js
  # The A/B runner's statistics, schedule and report (no build, under a second).
  node --test bench/ab/test/*.test.js
fi
if [ "$preset" = asan ]; then
  # The JS suite again, on the addon built with the same sanitizers.
  node scripts/test-js-sanitized.js
fi
