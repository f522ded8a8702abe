#!/usr/bin/env bash
# The C++ library as a user gets it, from outside the tree (issue 19):
#   1. installs a build of loopwire into a temporary prefix and compiles every installed header alone against it;
#   2. builds examples/cpp/hello_world.cpp against that prefix with CMake (find_package) and with plain c++ and
#      pkg-config, runs each with --port 0 and checks its answer to one curl request;
#   3. builds a project that adds loopwire with add_subdirectory: the README's C++ snippet (whose handler leaves
#      `req` unused) under the project's -Wall -Werror, and a file that shadows a name under its -Wall -Wextra
#      -Werror; loopwire's own warnings and internal headers must not reach either, and its tests, examples and
#      benchmarks must not be built.
# usage: bash tests/install/run.sh [BUILD_DIR]
#   BUILD_DIR: a configured, plain (not sanitized, not libc++) build tree; default build/, the default preset's,
#   configured if missing. Only the library is built in it (--target loopwire_archive).
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
cd "$root"

work=$(mktemp -d "${TMPDIR:-/tmp}/loopwire-install.XXXXXX")
server_pid=""
cleanup() {
  if [ -n "$server_pid" ]; then kill "$server_pid" 2>/dev/null || true; fi
  rm -rf "$work"
}
trap cleanup EXIT

fail() {
  echo "install test: FAIL: $*" >&2
  exit 1
}
# Runs a command with its output in a log, shown only when it fails.
quietly() {
  local log=$work/last.log
  "$@" >"$log" 2>&1 || { cat "$log" >&2; fail "$*"; }
}

build=$root/build
[ $# -eq 0 ] || build=$(cd "$1" && pwd)
cache_value() { sed -n "s/^$1:[A-Z]*=//p" "$build/CMakeCache.txt"; }
if [ -f "$build/CMakeCache.txt" ]; then
  for option in LW_SANITIZE LW_LIBCXX; do
    if [ "$(cache_value $option)" = ON ]; then
      echo "install test: $build is a $option build, whose users need its flags too; give it a plain build" >&2
      exit 2
    fi
  done
fi
if [ $# -gt 0 ]; then
  quietly cmake --build "$build" --target loopwire_archive
else
  quietly bash scripts/build.sh default --target loopwire_archive
fi
cxx=$(cache_value CMAKE_CXX_COMPILER)
version=$(cache_value CMAKE_PROJECT_VERSION)
generator=()
command -v ninja >/dev/null && generator=(-G Ninja)
launcher=()
command -v ccache >/dev/null && launcher=(ccache)

# Starts a hello_world binary on a free port, asks it for / and stops it.
serve_and_ask() {
  local binary=$1 line="" port body
  coproc server { exec "$binary" --port 0; }
  # shellcheck disable=SC2154 # server_PID is set by coproc
  server_pid=$server_PID
  read -r -t 10 -u "${server[0]}" line || true
  [[ $line =~ ^listening\ on\ ([0-9]+)$ ]] || fail "$binary did not print 'listening on <port>' (printed: '$line')"
  port=${BASH_REMATCH[1]}
  body=$(curl -sS --max-time 5 "http://127.0.0.1:$port/") || fail "curl to $binary on port $port"
  kill "$server_pid"
  wait "$server_pid" || true
  server_pid=""
  [ "$body" = "Hello world!" ] || fail "$binary answered '$body', not 'Hello world!'"
}

prefix=$work/prefix
echo "install test: cmake --install $(realpath --relative-to="$root" "$build") --prefix <tmp>"
quietly cmake --install "$build" --prefix "$prefix"
pc_file=$(find "$prefix" -name loopwire.pc)
[ -n "$pc_file" ] || fail "no loopwire.pc under the prefix"
PKG_CONFIG_PATH=$(dirname "$pc_file")
export PKG_CONFIG_PATH
[ "$(pkg-config --modversion loopwire)" = "$version" ] || fail "loopwire.pc says $(pkg-config --modversion loopwire)"

echo "install test: every installed header compiles alone"
for header in "$prefix"/include/loopwire/*.h; do
  echo "#include <loopwire/$(basename "$header")>" >"$work/$(basename "$header" .h).cpp"
done
# shellcheck disable=SC2016
printf '%s\n' "$work"/*.cpp | xargs -P 2 -I{} sh -c \
  '"$0" -std=c++20 -Wall -Wextra -Werror -fsyntax-only -I"$1/include" "$2" || exit 255' "$cxx" "$prefix" {} \
  2>"$work/headers.log" || { cat "$work/headers.log" >&2; fail "an installed header does not compile alone"; }

# hello_world.cpp and ExampleArgs.h alone in a folder of their own: nothing of the source tree is on the path.
app=$work/app
mkdir -p "$app"
cp examples/cpp/hello_world.cpp examples/cpp/ExampleArgs.h "$app/"

echo "install test: hello_world with find_package(loopwire)"
cat >"$app/CMakeLists.txt" <<'EOF'
cmake_minimum_required(VERSION 3.25)
project(hello_world CXX)
find_package(loopwire 0.1 CONFIG REQUIRED)
add_executable(hello_world hello_world.cpp)
target_compile_options(hello_world PRIVATE -Wall -Wextra -Werror)
target_link_libraries(hello_world PRIVATE loopwire::loopwire)
EOF
quietly cmake -S "$app" -B "$work/app-build" "${generator[@]}" -DCMAKE_BUILD_TYPE=Release \
  -DCMAKE_PREFIX_PATH="$prefix" -DCMAKE_CXX_COMPILER="$cxx" ${launcher:+-DCMAKE_CXX_COMPILER_LAUNCHER=ccache}
quietly cmake --build "$work/app-build" -j2
serve_and_ask "$work/app-build/hello_world"

echo "install test: hello_world with pkg-config"
# shellcheck disable=SC2046
quietly "${launcher[@]}" "$cxx" -std=c++20 -O2 -Wall -Wextra -Werror "$app/hello_world.cpp" -o "$work/hello_world_pc" \
  $(pkg-config --cflags --libs --static loopwire)
serve_and_ask "$work/hello_world_pc"

echo "install test: add_subdirectory(loopwire) with the README's snippet"
sub=$work/subproject
mkdir -p "$sub"
# The first C++ block of the README, as it is.
awk '/^```cpp$/ { inside = 1; next } inside && /^```$/ { exit } inside' README.md >"$sub/readme.cpp"
grep -q 'loopwire::App' "$sub/readme.cpp" || fail "no C++ snippet found in README.md"
cat >"$sub/strict.cpp" <<'EOF'
#include <loopwire/App.h>

int main() {
    int port = 3000;
    loopwire::App app;
    app.get("/*", [](loopwire::HttpResponse* res, loopwire::HttpRequest*) { res->end("Hello world!"); });
    {
        int port = 0;  // shadows the outer port: an error under loopwire's own -Wshadow -Werror, not under ours
        app.listen(port, [](loopwire::ListenSocket*) {});
    }
    return port == 3000 ? 0 : 1;
}
EOF
cat >"$sub/CMakeLists.txt" <<'EOF'
cmake_minimum_required(VERSION 3.25)
project(subproject CXX)
add_subdirectory(${LOOPWIRE_SOURCE_DIR} loopwire)
add_executable(readme readme.cpp)
target_compile_options(readme PRIVATE -Wall -Werror)
target_link_libraries(readme PRIVATE loopwire::loopwire)
add_executable(strict strict.cpp)
target_compile_options(strict PRIVATE -Wall -Wextra -Werror)
target_link_libraries(strict PRIVATE loopwire::loopwire)
EOF
quietly cmake -S "$sub" -B "$work/subproject-build" "${generator[@]}" -DCMAKE_BUILD_TYPE=Release \
  -DLOOPWIRE_SOURCE_DIR="$root" -DCMAKE_CXX_COMPILER="$cxx" -DCMAKE_EXPORT_COMPILE_COMMANDS=ON \
  ${launcher:+-DCMAKE_CXX_COMPILER_LAUNCHER=ccache}
for folder in tests examples bench fuzz; do
  [ ! -e "$work/subproject-build/loopwire/$folder" ] || fail "a subproject build configures loopwire's $folder/"
done
quietly cmake --build "$work/subproject-build" -j2
for file in readme strict; do
  command=$(grep "\"command\": .*/$file\\.cpp\"" "$work/subproject-build/compile_commands.json") ||
    fail "no compile command for $file.cpp"
  for flag in -Wpedantic -Wshadow "-I$root/core " "-isystem $root/core "; do
    [[ $command != *"$flag"* ]] || fail "loopwire's '$flag' reaches the subproject's $file.cpp: $command"
  done
  [[ $command == *"-I$root/core/include "* ]] || fail "$file.cpp is not given loopwire's public headers: $command"
done

echo "install test: ok (${SECONDS} s)"
