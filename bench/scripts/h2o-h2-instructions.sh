#!/usr/bin/env bash
# h2o's instructions per HTTP/2 request over TLS, under callgrind: h2o (Debian's, one thread, serving a 12-byte file,
# its fastest path) loaded by h2load -c 100 -m 10 with 10,000 and then 20,000 requests, the difference divided by
# 10,000 (so that start-up and the 100 handshakes cancel out; h2o's RSA signing runs in its neverbleed process and is
# not counted either way). The yardstick of docs/decisions/http2.md. Needs h2o, nghttp2-client (h2load), valgrind
# and openssl; run as root or as a user h2o may stay (it is told `user:` the current one).
#
#     bash bench/scripts/h2o-h2-instructions.sh [port, default 18443]
set -euo pipefail
port="${1:-18443}"
work="$(mktemp -d)"
trap 'pkill -9 -f "callgrind-out-file=$work" 2>/dev/null || true; rm -rf "$work"' EXIT
mkdir "$work/docroot"
printf 'Hello world!' > "$work/docroot/index.html"
openssl req -x509 -newkey rsa:2048 -nodes -keyout "$work/key.pem" -out "$work/cert.pem" -days 2 -subj /CN=localhost \
  2>/dev/null
cat > "$work/h2o.conf" <<CONF
user: $(id -un)
num-threads: 1
listen:
  host: 127.0.0.1
  port: $port
  ssl:
    certificate-file: $work/cert.pem
    key-file: $work/key.pem
hosts:
  default:
    paths:
      /:
        file.dir: $work/docroot
CONF

instructions() {  # runs h2o under callgrind for $1 requests; prints the instructions it executed
  taskset -c 0 valgrind --tool=callgrind --callgrind-out-file="$work/callgrind.$1.%p" h2o -c "$work/h2o.conf" \
    > "$work/h2o.$1.log" 2>&1 &
  local server=$!
  for _ in $(seq 1 200); do
    sleep 0.3
    (echo > "/dev/tcp/127.0.0.1/$port") 2>/dev/null && break
  done
  taskset -c 1 h2load -n "$1" -c 100 -m 10 "https://127.0.0.1:$port/index.html" | grep -E '^requests:' >&2
  # h2o's own shutdown never ends under callgrind within reason: ask for a dump, then stop it.
  for pid in $(pgrep -f "callgrind-out-file=$work/callgrind.$1"); do callgrind_control -d "$pid" >/dev/null || true; done
  sleep 2
  pkill -9 -f "callgrind-out-file=$work/callgrind.$1" || true
  pkill -9 -f annotate-backtrace-symbols || true
  wait "$server" 2>/dev/null || true
  # The serving process's dump is the largest.
  for dump in "$work"/callgrind."$1".*.1; do sed -n 's/^totals: //p' "$dump"; done | sort -n | tail -1
}

small=$(instructions 10000)
large=$(instructions 20000)
echo "h2o $(h2o --version | head -1 | awk '{print $3}'): $(( (large - small) / 10000 )) instructions per request"
