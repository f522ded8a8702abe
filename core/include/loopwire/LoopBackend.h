// The event loop backends loopwire can run on.
#pragma once

#include <cstdint>

namespace loopwire {

enum class LoopBackend : std::uint8_t {
    Epoll,  // Linux epoll, level-triggered: the default for standalone servers
    Libuv,  // libuv: the loop Node.js runs on (the addon uses Node's own loop)
};

}  // namespace loopwire
