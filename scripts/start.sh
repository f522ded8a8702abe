#!/usr/bin/env bash
# Builds what is missing and starts the demo server on $PORT (default 3000).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/build.sh default --target hello_world >/dev/null
exec ./build/examples/cpp/hello_world --port "${PORT:-3000}"
