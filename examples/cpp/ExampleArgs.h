// Command line shared by the examples: --port N (default 3000, or $PORT; 0 for any free port),
// --backend epoll|libuv, --http2 (HTTP/2 beside HTTP/1.1: ALPN h2 over TLS, prior knowledge on cleartext),
// --compression off|shared|dedicated for the WebSocket examples, and --key FILE --cert FILE (PEM) for the HTTPS
// example, --redis URL (default $REDIS_URL, else redis://127.0.0.1:6379) for the cluster example.
#pragma once

#include <loopwire/App.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>

struct ExampleArgs {
    int port = 3000;
    loopwire::ServerOptions options;
    loopwire::CompressOptions compression = loopwire::DISABLED;
    const char* keyFile = "";
    const char* certFile = "";
    const char* redisUrl = "redis://127.0.0.1:6379";

    static ExampleArgs parse(int argc, char** argv) {
        ExampleArgs args;
        if (const char* fromEnvironment = std::getenv("PORT")) args.port = std::atoi(fromEnvironment);
        if (const char* fromEnvironment = std::getenv("REDIS_URL")) args.redisUrl = fromEnvironment;
        for (int i = 1; i < argc; ++i) {
            if (std::strcmp(argv[i], "--port") == 0 && i + 1 < argc) {
                args.port = std::atoi(argv[++i]);
            } else if (std::strcmp(argv[i], "--backend") == 0 && i + 1 < argc) {
                ++i;
                args.options.backend =
                    std::strcmp(argv[i], "libuv") == 0 ? loopwire::LoopBackend::Libuv : loopwire::LoopBackend::Epoll;
            } else if (std::strcmp(argv[i], "--http2") == 0) {
                args.options.http2 = true;
            } else if (std::strcmp(argv[i], "--key") == 0 && i + 1 < argc) {
                args.keyFile = argv[++i];
            } else if (std::strcmp(argv[i], "--redis") == 0 && i + 1 < argc) {
                args.redisUrl = argv[++i];
            } else if (std::strcmp(argv[i], "--cert") == 0 && i + 1 < argc) {
                args.certFile = argv[++i];
            } else if (std::strcmp(argv[i], "--compression") == 0 && i + 1 < argc) {
                ++i;
                if (std::strcmp(argv[i], "shared") == 0) {
                    args.compression = loopwire::SHARED_COMPRESSOR | loopwire::SHARED_DECOMPRESSOR;
                } else if (std::strcmp(argv[i], "dedicated") == 0) {
                    args.compression = loopwire::DEDICATED_COMPRESSOR | loopwire::DEDICATED_DECOMPRESSOR;
                } else if (std::strcmp(argv[i], "off") != 0) {
                    std::fprintf(stderr, "--compression takes off, shared or dedicated\n");
                    std::exit(2);
                }
            } else {
                std::fprintf(stderr,
                             "usage: %s [--port N] [--backend epoll|libuv] [--http2] "
                             "[--compression off|shared|dedicated] "
                             "[--key FILE --cert FILE] [--redis URL]\n",
                             argv[0]);
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
