#!/usr/bin/env bash
# nghttp2's server instructions and allocations per HTTP/2 stream (bench/scripts/nghttp2-cost.cpp), under callgrind:
# two runs of 10,000 and 20,000 measured streams after the warm-up, 10 streams per batch (h2load -m 10), the
# difference divided by 10,000, for each configuration in turn. Needs libnghttp2-dev (or NGHTTP2_SOURCE: an nghttp2
# source tree whose lib/ is compiled here, to measure another version) and valgrind. docs/decisions/http2.md.
#
#     bash bench/scripts/nghttp2-cost.sh [build folder, default build/nghttp2-cost]
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
out="${1:-build/nghttp2-cost}"
mkdir -p "$out"
flags=(-O2 -g -fno-ipa-icf -std=c++20)
if [[ -n "${NGHTTP2_SOURCE:-}" ]]; then
  # The library's own sources, compiled as its CMake build would (the version header comes from its configure step).
  cmake -S "$NGHTTP2_SOURCE" -B "$out/nghttp2" -DENABLE_LIB_ONLY=ON >/dev/null 2>&1 || true
  version_dir="$(dirname "$(find "$out/nghttp2" -name nghttp2ver.h | head -1)")/.."
  objects=()
  for source in "$NGHTTP2_SOURCE"/lib/*.c; do
    object="$out/$(basename "$source" .c).o"
    gcc -O2 -DNGHTTP2_STATICLIB -DBUILDING_NGHTTP2 -I"$NGHTTP2_SOURCE/lib" -I"$NGHTTP2_SOURCE/lib/includes" \
      -I"$version_dir" -c "$source" -o "$object"
    objects+=("$object")
  done
  ar rcs "$out/libnghttp2.a" "${objects[@]}"
  g++ "${flags[@]}" -DNGHTTP2_STATICLIB -I"$NGHTTP2_SOURCE/lib/includes" -I"$version_dir" \
    "$here/nghttp2-cost.cpp" "$out/libnghttp2.a" -o "$out/nghttp2-cost"
else
  g++ "${flags[@]}" "$here/nghttp2-cost.cpp" -lnghttp2 -o "$out/nghttp2-cost"
fi

server_instructions() {  # the inclusive cost of the server's two functions in a callgrind file
  callgrind_annotate --inclusive=yes "$1" |
    awk '/nghttp2-cost.cpp:.*server(Receive|Send)/ && !/=>/ { gsub(",", "", $1); sum += $1 } END { print sum }'
}

for options in "" "no-priorities" "pool no-priorities" "pool no-priorities no-messaging"; do
  for streams in 11000 21000; do
    # shellcheck disable=SC2086
    valgrind --tool=callgrind --callgrind-out-file="$out/callgrind.$streams" "$out/nghttp2-cost" 10 "$streams" \
      $options > "$out/report.$streams" 2>/dev/null
  done
  small=$(server_instructions "$out/callgrind.11000")
  large=$(server_instructions "$out/callgrind.21000")
  head -1 "$out/report.21000"
  echo "  server instructions per stream: $(( (large - small) / 10000 ))"
  tail -n +2 "$out/report.21000" | sed 's/^/  /'
done
