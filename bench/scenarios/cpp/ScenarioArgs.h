// Command line shared by the scenario servers: --port N (0 picks a free port) and --backend epoll|libuv, and the
// "listening on <port>" line the A/B runner waits for. Unknown arguments are a usage error (exit 2).
#pragma once

#include <loopwire/App.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>

struct ScenarioArgs {
    int port = 0;
    loopwire::ServerOptions options;

    static ScenarioArgs parse(int argc, char** argv) {
        ScenarioArgs args;
        for (int i = 1; i < argc; ++i) {
            if (std::strcmp(argv[i], "--port") == 0 && i + 1 < argc) {
                args.port = std::atoi(argv[++i]);
            } else if (std::strcmp(argv[i], "--backend") == 0 && i + 1 < argc) {
                ++i;
                args.options.backend =
                    std::strcmp(argv[i], "libuv") == 0 ? loopwire::LoopBackend::Libuv : loopwire::LoopBackend::Epoll;
            } else {
                std::fprintf(stderr, "usage: %s [--port N] [--backend epoll|libuv]\n", argv[0]);
                std::exit(2);
            }
        }
        return args;
    }

    // The listen callback of every scenario: the runner reads the port from this line.
    static void announce(loopwire::ListenSocket* listenSocket, int requestedPort) {
        if (listenSocket == nullptr) {
            std::fprintf(stderr, "failed to listen on port %d\n", requestedPort);
            std::exit(1);
        }
        std::printf("listening on %d\n", loopwire::App::localPort(listenSocket));
        std::fflush(stdout);
    }
};
