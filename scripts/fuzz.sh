#!/usr/bin/env bash
# Builds the libFuzzer targets (clang) and runs each for a bounded time: FUZZ_SECONDS (default 60) each.
# New inputs go to build-fuzz/corpus/<target>/ (the seed corpus in fuzz/corpus/ is read, never written).
set -euo pipefail
cd "$(dirname "$0")/.."
seconds="${FUZZ_SECONDS:-60}"
bash scripts/build.sh fuzz
status=0
for fuzzer in build-fuzz/fuzz/*_fuzzer; do
  name=$(basename "$fuzzer" _fuzzer)
  work="build-fuzz/corpus/$name"
  mkdir -p "$work" build-fuzz/artifacts
  dict=()
  [ -f "fuzz/$name.dict" ] && dict=(-dict="fuzz/$name.dict")
  echo "== $name: ${seconds}s"
  "$fuzzer" "${dict[@]}" -max_total_time="$seconds" -print_final_stats=1 \
    -artifact_prefix=build-fuzz/artifacts/ "$work" "fuzz/corpus/$name" || status=1
done
exit $status
