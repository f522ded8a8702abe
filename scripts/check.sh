#!/usr/bin/env bash
# npm run check: the edit-test loop, within five minutes on two CPUs once ccache and the build folders are warm.
# clang-format, then what `npm test` runs (the Release build, every C++ test through CTest, the addon and the JS
# suite on the Node on PATH, the A/B runner's own tests), then clang-tidy on the core (each file remembered clean
# is not checked again: scripts/tidy.sh). What it leaves to `bash .ci/run`: the sanitizers, clang with libc++,
# the other Node lines, the prebuilt binaries and the packed package, lwbench's integration, the soak and the
# fuzzers (docs/testing.md says when to run which).
set -euo pipefail
cd "$(dirname "$0")/.."
start=$(date +%s)
bash scripts/format.sh
bash scripts/test.sh default
bash scripts/tidy.sh
echo "npm run check: passed in $(($(date +%s) - start)) s"
