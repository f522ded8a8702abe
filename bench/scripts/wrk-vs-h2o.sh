#!/usr/bin/env bash
# Measures examples/cpp/hello_world against h2o serving the same 12-byte body from memory (an mruby handler),
# with wrk, in one run: each server pinned to CPU 0, wrk pinned to CPU 1, the two servers alternating for
# ROUNDS rounds of DURATION seconds. Prints each round with the server's busy share of its CPU and its CPU time
# per request (from /proc/<pid>/stat): when wrk cannot saturate the servers (Busy well under 100 %), req/s is
# wrk's pace and CPU per request is the figure that compares the servers. Loopback only.
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

ticks=$(getconf CLK_TCK)
cpu_ticks() { awk '{print $14 + $15}' "/proc/$1/stat"; }
# Runs wrk against url $1 served by pid $2; prints "req/s busy% cpu-us-per-request".
measure() {
  local before after requests seconds
  before=$(cpu_ticks "$2")
  out=$(taskset -c 1 wrk -t1 -c"$connections" -d"${duration}s" "$1")
  after=$(cpu_ticks "$2")
  requests=$(echo "$out" | awk '/requests in/ {print $1}')
  seconds=$(echo "$out" | awk '/requests in/ {sub("s,","",$4); print $4}')
  python3 -c "r=$requests; s=$seconds; cpu=($after-$before)/$ticks; print(f'{r/s:.0f} {100*cpu/s:.0f} {1e6*cpu/r:.2f}')"
}
check() { curl -s "$1"; }
[ "$(check "http://127.0.0.1:$lw_port/")" = "Hello world!" ] || { echo "loopwire answers wrongly" >&2; exit 1; }
[ "$(check "http://127.0.0.1:$h2o_port/")" = "Hello world!" ] || { echo "h2o answers wrongly" >&2; exit 1; }

printf '| round | loopwire req/s | busy | CPU/req | h2o req/s | busy | CPU/req | req/s ratio | CPU/req ratio |\n'
printf '|---|---|---|---|---|---|---|---|---|\n'
rps_ratios=()
cpu_ratios=()
for round in $(seq "$rounds"); do
  if [ $((round % 2)) -eq 1 ]; then
    read -r a_rps a_busy a_cpu <<<"$(measure "http://127.0.0.1:$lw_port/" "$lw_pid")"
    read -r b_rps b_busy b_cpu <<<"$(measure "http://127.0.0.1:$h2o_port/" "$h2o_pid")"
  else
    read -r b_rps b_busy b_cpu <<<"$(measure "http://127.0.0.1:$h2o_port/" "$h2o_pid")"
    read -r a_rps a_busy a_cpu <<<"$(measure "http://127.0.0.1:$lw_port/" "$lw_pid")"
  fi
  rps_ratio=$(python3 -c "print(f'{$a_rps/$b_rps:.2f}')")
  cpu_ratio=$(python3 -c "print(f'{$a_cpu/$b_cpu:.2f}')")
  rps_ratios+=("$rps_ratio")
  cpu_ratios+=("$cpu_ratio")
  printf '| %s | %s | %s %% | %s µs | %s | %s %% | %s µs | %s | %s |\n' "$round" "$a_rps" "$a_busy" "$a_cpu" \
    "$b_rps" "$b_busy" "$b_cpu" "$rps_ratio" "$cpu_ratio"
done
median() { printf '%s\n' "$@" | sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
printf 'median loopwire/h2o: req/s %s, CPU per request %s\n' "$(median "${rps_ratios[@]}")" "$(median "${cpu_ratios[@]}")"
