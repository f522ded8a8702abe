#!/usr/bin/env bash
# loopwire's instructions per HTTP/2 request over TLS, under callgrind, measured as h2o's are
# (bench/scripts/h2o-h2-instructions.sh): the C++ scenario server https-hello-world with --http2, loaded by
# h2load -c 100 -m 10 with 10,000 and then 20,000 requests, the difference divided by 10,000 (start-up and the 100
# handshakes cancel out). Needs a build with bench_scenarios (cmake --build build --target bench_scenarios),
# nghttp2-client (h2load), valgrind and openssl.
#
#     bash bench/scripts/loopwire-h2-instructions.sh [build dir, default build] [port, default 18444] [h2load URL path]
set -euo pipefail
build="${1:-build}"
port="${2:-18444}"
server="$build/bench/scenarios/https-hello-world"
[ -x "$server" ] || { echo "no $server: cmake --build $build --target bench_scenarios" >&2; exit 2; }
work="$(mktemp -d)"
trap 'pkill -9 -f "callgrind-out-file=$work" 2>/dev/null || true; rm -rf "$work"' EXIT
openssl req -x509 -newkey rsa:2048 -nodes -keyout "$work/key.pem" -out "$work/cert.pem" -days 2 -subj /CN=localhost \
  2>/dev/null

instructions() {  # runs the server under callgrind for $1 requests; prints the instructions it executed
  taskset -c 0 valgrind --tool=callgrind --callgrind-out-file="$work/callgrind.$1" "$server" --http2 \
    --key "$work/key.pem" --cert "$work/cert.pem" --port "$port" > "$work/server.$1.log" 2>&1 &
  local pid=$!
  for _ in $(seq 1 200); do
    sleep 0.3
    (echo > "/dev/tcp/127.0.0.1/$port") 2>/dev/null && break
  done
  taskset -c 1 h2load -n "$1" -c 100 -m 10 "https://127.0.0.1:$port/index.html" | grep -E '^requests:' >&2
  kill -INT "$pid" 2>/dev/null || true
  callgrind_control -d "$pid" >/dev/null 2>&1 || true
  sleep 1
  kill -9 "$pid" 2>/dev/null || true
  wait "$pid" 2>/dev/null || true
  for dump in "$work"/callgrind."$1"*; do sed -n 's/^totals: //p' "$dump"; done | sort -n | tail -1
}

small=$(instructions 10000)
large=$(instructions 20000)
echo "loopwire (C++, http2): $(( (large - small) / 10000 )) instructions per request"
