#!/usr/bin/env bash
# Lists the Debian packages loopwire needs that this machine lacks; with --install, installs them (root only).
#   build:  what `npm start` and `npm test` need
#   full:   also what the ASan, libc++ and fuzz builds, the benchmark comparisons (h2o and nginx-light for the static/*
#           scenarios' --vs h2o and --vs nginx), the browser test of the demo
#           (tests/js/demo.test.js: it skips without chromium, except under CI=true) and the prebuilt binaries
#           (scripts/prebuild.js: the arm64 cross compiler, and qemu-user to run them) need
set -euo pipefail
mode=check
set_name=build
for arg in "$@"; do
  case "$arg" in
    --install) mode=install ;;
    --full) set_name=full ;;
    *) echo "usage: $0 [--install] [--full]" >&2; exit 2 ;;
  esac
done

packages=(cmake ninja-build g++ pkg-config libuv1-dev zlib1g-dev libbrotli-dev libzstd-dev libssl-dev openssl googletest
          libgtest-dev curl wrk redis-server nghttp2-client python3-h2)
if [ "$set_name" = full ]; then
  packages+=(clang clang-format clang-tidy libc++-dev libc++abi-dev libclang-rt-14-dev ccache h2o nginx-light valgrind
             chromium g++-aarch64-linux-gnu qemu-user)
fi

missing=()
for package in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed" || missing+=("$package")
done
[ ${#missing[@]} -eq 0 ] && exit 0

if [ "$mode" = install ]; then
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq --no-install-recommends "${missing[@]}"
  exit 0
fi
echo "loopwire: missing Debian packages: ${missing[*]} (install them with: sudo apt-get install ${missing[*]}, or run: sudo bash scripts/deps.sh --install)" >&2
exit 1
