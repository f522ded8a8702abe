// Command line shared by the examples: --port N (default 3000, or $PORT; 0 for any free port) and
// --backend epoll|libuv.
#pragma once

#include <loopwire/App.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>

struct ExampleArgs {
    int port = 3000;
    loopwire::ServerOptions options;

    static ExampleArgs parse(int argc, char** argv) {
        ExampleArgs args;
        if (const char* fromEnvironment = std::getenv("PORT")) args.port = std::atoi(fromEnvironment);
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

    // The listen callback every example uses.
    static void announce(loopwire::ListenSocket* listenSocket, int requestedPort) {
        if (listenSocket == nullptr) {
            std::fprintf(stderr, "failed to listen on port %d\n", requestedPort);
            std::exit(1);
        }
        std::printf("listening on %d\n", loopwire::App::localPort(listenSocket));
        std::fflush(stdout);
    }
};
