// The scenario servers take the examples' command line: --port N (0 picks a free port) and --backend
// epoll|libuv, and print the "listening on <port>" line the A/B runner waits for. The runner always passes
// --port, so the examples' default of 3000 (or $PORT) never applies here.
#pragma once

#include "../../../examples/cpp/ExampleArgs.h"

using ScenarioArgs = ExampleArgs;
