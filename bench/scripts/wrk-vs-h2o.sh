#!/usr/bin/env bash
# Measures examples/cpp/hello_world against h2o serving the same 12-byte body from memory (an mruby handler),
# with wrk, in one run: each server pinned to CPU 0, wrk pinned to CPU 1, the two servers alternating for
# ROUNDS rounds of DURATION seconds. Prints each round and the median ratio. Loopback only.
#   usage: bench/scripts/wrk-vs-h2o.sh [ROUNDS=3] [DURATION=5] [CONNECTIONS=100]
set -euo pipefail
cd "$(dirname "$0")/../.."
rounds="${1:-3}"
duration="${2:-5}"
connections="${3:-100}"
command -v wrk >/dev/null || { echo "wrk is not installed" >&2; exit 1; }
command -v h2o >/dev/null || { echo "h2o is not installed (apt-get install h2o)" >&2; exit 1; }
bash scripts/build.sh default --target hello_world >/dev/null

work=$(mktemp -d)
cleanup() { kill "${lw_pid:-}" "${h2o_pid:-}" 2>/dev/null || true; rm -rf "$work"; }
trap cleanup EXIT

taskset -c 0 ./build/examples/cpp/hello_world --port 0 >"$work/lw.out" &
lw_pid=$!
for _ in $(seq 50); do grep -q listening "$work/lw.out" && break; sleep 0.1; done
lw_port=$(awk '{print $3}' "$work/lw.out")

h2o_port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
cat >"$work/h2o.conf" <<CONF
listen:
  host: 127.0.0.1
  port: $h2o_port
num-threads: 1
hosts:
  default:
    paths:
      /:
        mruby.handler: |
          Proc.new do |env|
            [200, {"content-type" => "text/plain"}, ["Hello world!"]]
          end
CONF
chmod 755 "$work"
taskset -c 0 h2o -c "$work/h2o.conf" >"$work/h2o.log" 2>&1 &
h2o_pid=$!
for _ in $(seq 50); do curl -s "http://127.0.0.1:$h2o_port/" >/dev/null && break; sleep 0.1; done

rps() { taskset -c 1 wrk -t1 -c"$connections" -d"${duration}s" "$1" | awk '/Requests\/sec/ {print $2}'; }
check() { curl -s "$1"; }
[ "$(check "http://127.0.0.1:$lw_port/")" = "Hello world!" ] || { echo "loopwire answers wrongly" >&2; exit 1; }
[ "$(check "http://127.0.0.1:$h2o_port/")" = "Hello world!" ] || { echo "h2o answers wrongly" >&2; exit 1; }

printf '| round | loopwire req/s | h2o req/s | loopwire / h2o |\n|---|---|---|---|\n'
ratios=()
for round in $(seq "$rounds"); do
  if [ $((round % 2)) -eq 1 ]; then
    a=$(rps "http://127.0.0.1:$lw_port/"); b=$(rps "http://127.0.0.1:$h2o_port/")
  else
    b=$(rps "http://127.0.0.1:$h2o_port/"); a=$(rps "http://127.0.0.1:$lw_port/")
  fi
  ratio=$(python3 -c "print(f'{$a/$b:.2f}')")
  ratios+=("$ratio")
  printf '| %s | %s | %s | %s |\n' "$round" "$a" "$b" "$ratio"
done
printf 'median ratio: %s\n' "$(printf '%s\n' "${ratios[@]}" | sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}')"
