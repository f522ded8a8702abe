#!/usr/bin/env bash
# Builds the libFuzzer targets (clang) and runs each for a bounded time: FUZZ_SECONDS (default 60) each, FUZZ_JOBS
# of them at once (default: one per CPU; each target is one process on one CPU). A target's output goes to
# build-fuzz/logs/<target>.log and is printed when it ends; a failing target's artifact goes to
# build-fuzz/artifacts/. New inputs go to build-fuzz/corpus/<target>/ (the seed corpus in fuzz/corpus/ is read,
# never written).
set -euo pipefail
cd "$(dirname "$0")/.."
seconds="${FUZZ_SECONDS:-60}"
jobs="${FUZZ_JOBS:-$(nproc)}"
bash scripts/build.sh fuzz
mkdir -p build-fuzz/artifacts build-fuzz/logs

run_target() {
  local name="$1"
  local work="build-fuzz/corpus/$name"
  mkdir -p "$work"
  local dict=()
  [ -f "fuzz/$name.dict" ] && dict=(-dict="fuzz/$name.dict")
  "build-fuzz/fuzz/${name}_fuzzer" "${dict[@]}" -max_total_time="$seconds" -print_final_stats=1 \
    -artifact_prefix="build-fuzz/artifacts/$name-" "$work" "fuzz/corpus/$name" >"build-fuzz/logs/$name.log" 2>&1
}

names=()
for fuzzer in build-fuzz/fuzz/*_fuzzer; do
  names+=("$(basename "$fuzzer" _fuzzer)")
done
declare -A pid_of
for name in "${names[@]}"; do
  while [ "$(jobs -rp | wc -l)" -ge "$jobs" ]; do
    wait -n || true
  done
  echo "== $name: ${seconds}s"
  run_target "$name" &
  pid_of[$name]=$!
done

status=0
for name in "${names[@]}"; do
  if wait "${pid_of[$name]}"; then
    echo "== $name: passed ($(grep -m1 -o 'stat::number_of_executed_units: *[0-9]*' "build-fuzz/logs/$name.log" ||
                               echo 'no stats'))"
  else
    echo "== $name: FAILED (build-fuzz/logs/$name.log):"
    tail -n 60 "build-fuzz/logs/$name.log"
    status=1
  fi
done
exit $status
