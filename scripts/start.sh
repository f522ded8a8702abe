#!/usr/bin/env bash
# Builds the Node addon if it is missing and starts the JS demo (examples/js/demo.js) on $PORT (default 3000).
set -euo pipefail
cd "$(dirname "$0")/.."
node scripts/build-addon.js --if-missing --quiet
exec node examples/js/demo.js
