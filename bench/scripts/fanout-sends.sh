#!/usr/bin/env bash
# Deliveries per send of cluster/fanout: starts the scenario's cluster (two nodes and a redis-server, through its
# launcher) on CPU 0, loads it with lwload fanout on CPU 1 as the A/B runner does, counts the send, write and poll
# system calls of every process of the cluster with `perf stat` on tracepoints (no hardware counters needed) for
# the middle of the run, and prints them with the deliveries lwload counted. At 1,000 subscribers a delivery is a
# share of one send to one subscriber, so deliveries per send is what the CPU per delivery follows
# (docs/benchmarks.md, "Pub/sub across a cluster").
#
#   bash bench/scripts/fanout-sends.sh [loopwire-js|uws] [seconds]
#
# Needs perf (Debian's linux-perf), lwload built (npm run build:cpp), and for uws the A/B runner's cache
# (npm run bench:ab -- --vs uws installs it).
set -euo pipefail
cd "$(dirname "$0")/../.."
impl=${1:-loopwire-js}
seconds=${2:-6}
case "$impl" in
  loopwire-js) node_script=loopwire-node.js; module=$PWD ;;
  uws) node_script=uws-glue-node.js; module=${UWS_MODULE:-$HOME/.cache/loopwire-bench/uwebsockets-3.0.6/node_modules/uwebsockets} ;;
  *) echo "usage: $0 [loopwire-js|uws] [seconds]" >&2; exit 2 ;;
esac
[ "$seconds" -ge 4 ] || { echo "seconds: 4 or more" >&2; exit 2; }
lwload=build/bench/lwload
[ -x "$lwload" ] || { echo "$lwload is missing: npm run build:cpp" >&2; exit 1; }

work=$(mktemp -d)
launcher_pid=
cleanup() {
  [ -n "$launcher_pid" ] && kill -TERM "$launcher_pid" 2>/dev/null || true
  rm -rf "$work"
}
trap cleanup EXIT

# A process group of its own, so that every process of the cluster can be found and counted.
setsid taskset -c 0 node bench/scenarios/js/cluster/launcher.js --node "$node_script" --module "$module" --port 0 \
  > "$work/launcher.out" 2>&1 &
launcher_pid=$!
for _ in $(seq 200); do grep -q "listening on" "$work/launcher.out" && break; sleep 0.1; done
port=$(sed -n 's/^listening on \([0-9]*\).*/\1/p' "$work/launcher.out")
split=$(sed -n 's/^split on \([0-9]*\).*/\1/p' "$work/launcher.out")
[ -n "$port" ] && [ -n "$split" ] || { cat "$work/launcher.out" >&2; exit 1; }
pids=$(pgrep -d, -g "$(ps -o pgid= "$launcher_pid" | tr -d ' ')")

taskset -c 1 "$lwload" fanout -c 1000 -d "${seconds}s" -s 20 --binary --window 8 --split-url "ws://127.0.0.1:$split/" \
  --settle 250 "ws://127.0.0.1:$port/" > "$work/lwload.json" &
load_pid=$!
# The subscribers join in the first two seconds; the count covers the seconds after, up to the last one.
sleep 2.5
counted=$((seconds - 3))
perf stat -x, -e syscalls:sys_enter_sendto,syscalls:sys_enter_writev,syscalls:sys_enter_write \
  -e syscalls:sys_enter_recvfrom,syscalls:sys_enter_read,syscalls:sys_enter_epoll_wait,syscalls:sys_enter_epoll_pwait \
  -p "$pids" -- sleep "$counted" 2> "$work/perf.csv"
wait "$load_pid"
node -e '
const fs = require("node:fs");
const [perfFile, loadFile, counted] = process.argv.slice(1);
const calls = {};
for (const line of fs.readFileSync(perfFile, "utf8").split("\n")) {
  const [count, , event] = line.split(",");
  if (event && event.startsWith("syscalls:sys_enter_")) calls[event.slice(19)] = Number(count);
}
const load = JSON.parse(fs.readFileSync(loadFile, "utf8").trim().split("\n").pop());
const deliveries = load.requests / load.duration_s * Number(counted);
for (const [name, count] of Object.entries(calls)) console.log(`${name.padEnd(12)} ${count}`);
console.log(`deliveries   ${Math.round(deliveries)} (lwload: ${Math.round(load.requests / load.duration_s)}/s)`);
console.log(`deliveries per send: ${(deliveries / (calls.sendto + calls.writev + calls.write)).toFixed(2)}`);
' "$work/perf.csv" "$work/lwload.json" "$counted"
