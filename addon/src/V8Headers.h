// The V8 and Node headers, included in one place so that their own warnings, which -Wall -Wextra -Wpedantic
// -Wshadow would turn into errors, are silenced for them and only for them. (CMake also marks the Node include
// folder as a system folder; the pragmas keep this true for a compiler or tool that does not honour that.)
#pragma once

#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wunused-parameter"
#pragma GCC diagnostic ignored "-Wshadow"
#pragma GCC diagnostic ignored "-Wpedantic"
#include <node.h>
#include <node_version.h>
#include <uv.h>
#include <v8.h>
#pragma GCC diagnostic pop
