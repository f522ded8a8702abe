// listenOnLoopback: a TCP socket listening on a free port of 127.0.0.1, for test peers written by hand (scripted
// Redis nodes, relays). The caller accepts on it and closes it.
#pragma once

namespace loopwire::test {

// Returns the listening descriptor (-1 on failure) and stores its port in `port`.
int listenOnLoopback(int& port);

}  // namespace loopwire::test
