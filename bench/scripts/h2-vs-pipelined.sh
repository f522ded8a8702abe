#!/usr/bin/env bash
# One server, two protocols, the same depth: the addon's hello-world over TLS (bench/scenarios/js/uws/
# https-hello-world.js with --http2, so that one process answers both) loaded in turns by lwload over HTTP/1.1 with
# ten requests pipelined per connection and by h2load over HTTP/2 with ten streams in flight per connection, 100
# connections each, the server pinned to CPU 0 and the load to CPU 1. Prints the server's CPU time per request for
# each run, from /proc (utime + stime), and the ratio of the medians: issue 43's "no more per request over HTTP/2
# than the addon's own HTTP/1.1 pipelined at the same depth". The lwbench runner cannot put the two loads in one
# scenario, hence this script. Needs a build with lwload (cmake --build build --target lwload), the addon built,
# nghttp2-client and openssl.
#
#     bash bench/scripts/h2-vs-pipelined.sh [rounds, default 3] [seconds per run, default 5] [--impl cpp]
# With --impl cpp, the C++ server (build/bench/scenarios/https-hello-world --http2) instead of the addon.
set -euo pipefail
rounds="${1:-3}"
seconds="${2:-5}"
impl="${3:-}"
[ "$impl" = "--impl" ] && impl="${4:-}"
root="$(cd "$(dirname "$0")/../.." && pwd)"
lwload="$root/build/bench/lwload"
[ -x "$lwload" ] || { echo "no $lwload: cmake --build build --target lwload" >&2; exit 2; }
work="$(mktemp -d)"
server_pid=""
cleanup() {
  [ -n "$server_pid" ] && kill "$server_pid" 2>/dev/null || true
  rm -rf "$work"
}
trap cleanup EXIT
openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -keyout "$work/key.pem" \
  -out "$work/cert.pem" -days 2 -subj /CN=localhost 2>/dev/null

if [ "$impl" = "cpp" ]; then
  server=("$root/build/bench/scenarios/https-hello-world")
else
  server=(node "$root/bench/scenarios/js/uws/https-hello-world.js" --module "$root")
fi
taskset -c 0 "${server[@]}" --http2 --key "$work/key.pem" --cert "$work/cert.pem" --port 0 > "$work/server.log" 2>&1 &
server_pid=$!
for _ in $(seq 1 100); do
  grep -q "listening on" "$work/server.log" 2>/dev/null && break
  sleep 0.1
done
port="$(sed -n 's/.*listening on \([0-9]*\).*/\1/p' "$work/server.log" | head -1)"
[ -n "$port" ] || { echo "the server did not start:" >&2; cat "$work/server.log" >&2; exit 1; }

ticks_per_second="$(getconf CLK_TCK)"
cpu_ticks() { awk '{ print $14 + $15 }' "/proc/$server_pid/stat"; }

# Runs "$@" pinned to CPU 1 and prints "<server CPU µs per request> <requests>"; the request count is read from the
# tool's output by the awk program in $1.
measure() {
  local count_program="$1"
  shift
  local before after requests
  before="$(cpu_ticks)"
  requests="$(taskset -c 1 "$@" 2>/dev/null | awk "$count_program")"
  after="$(cpu_ticks)"
  awk -v t=$((after - before)) -v n="$requests" -v hz="$ticks_per_second" \
    'BEGIN { printf "%.2f %d\n", t / hz * 1e6 / n, n }'
}

http11=()
http2=()
for round in $(seq 1 "$rounds"); do
  read -r us n < <(measure '/"requests":/ { match($0, /"requests":[0-9]+/); print substr($0, RSTART + 11, RLENGTH - 11) }' \
    "$lwload" http -c 100 -p 10 -d "${seconds}s" "https://127.0.0.1:$port/")
  echo "round $round: HTTP/1.1, 10 pipelined: $us µs per request ($n requests)"
  http11+=("$us")
  # --npn-list h2: h2load would otherwise fall back to HTTP/1.1 with a server that does not select h2; the awk
  # program prints nothing (and the division fails loudly) unless ALPN chose h2.
  read -r us n < <(measure '/^Application protocol: h2$/ { h2 = 1 } /^requests:/ && h2 { print $8 }' \
    h2load -c 100 -m 10 -t 1 --npn-list h2 -D "$seconds" "https://127.0.0.1:$port/")
  echo "round $round: HTTP/2, 10 streams:     $us µs per request ($n requests)"
  http2+=("$us")
done
median() { printf '%s\n' "$@" | sort -n | awk '{ a[NR] = $1 } END { print (NR % 2) ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2 }'; }
m1="$(median "${http11[@]}")"
m2="$(median "${http2[@]}")"
awk -v a="$m1" -v b="$m2" 'BEGIN { printf "median: HTTP/1.1 pipelined %.2f µs, HTTP/2 %.2f µs per request: HTTP/2 / HTTP/1.1 = %.3f\n", a, b, b / a }'
