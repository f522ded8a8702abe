#!/usr/bin/env bash
# Builds a preset (default: the Release build) and runs its whole test suite with CTest; for the default preset,
# then builds the Node addon for the Node on PATH and runs the JS suite (tests/js/, node:test); for asan, the JS
# suite also runs on the addon built with ASan and UBSan.
set -euo pipefail
cd "$(dirname "$0")/.."
preset="${1:-default}"
bash scripts/build.sh "$preset"
# Four tests per CPU (LW_CTEST_JOBS to change it): most integration tests wait on sockets, timers, Redis and child
# processes, so two at a time on two CPUs left them idle (190 s; 91 s at eight). They are written to be robust under
# that load: every wait has a deadline, none a fixed sleep (docs/testing.md).
ctest --preset "$preset" -j "${LW_CTEST_JOBS:-$(($(nproc) * 4))}" --timeout 300
if [ "$preset" = default ]; then
  node scripts/build-addon.js --quiet
  node scripts/test-js.js
  # The A/B runner's statistics, schedule and report (no build, under a second).
  node --test bench/ab/test/*.test.js
fi
if [ "$preset" = asan ]; then
  # The JS suite again, on the addon built with the same sanitizers.
  node scripts/test-js-sanitized.js
fi
