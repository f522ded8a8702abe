// Every core serving one port: one App, one loop, one thread each. Two ways to share the port:
//
//   multi_core [--threads N]             every thread listens on the port (SO_REUSEPORT): the kernel spreads the
//                                        connections over the listeners
//   multi_core --acceptor [--threads N]  the main thread alone listens and hands each connection it accepts to
//                                        the next worker thread in turn (App::addChildApp), which serves it
//
// Each worker answers "Hello from thread <i>!". --threads defaults to the number of cores; --port and --backend
// as in every example.
#include "ExampleArgs.h"

#include <algorithm>
#include <future>
#include <string>
#include <thread>
#include <vector>

namespace {

// A worker's App: the same routes on every thread.
void addRoutes(loopwire::App& app, int index) {
    std::string greeting = "Hello from thread " + std::to_string(index) + "!";
    app.get("/*", [greeting](loopwire::HttpResponse* res, loopwire::HttpRequest*) { res->end(greeting); });
}

// Every thread listens on the port; the first one picks it when --port is 0.
void runReusePort(const ExampleArgs& args, int threads) {
    std::vector<std::thread> workers;
    int port = args.port;
    for (int index = 0; index < threads; ++index) {
        std::promise<int> listening;
        std::future<int> bound = listening.get_future();
        workers.emplace_back([&args, index, port, &listening] {
            loopwire::App app(args.options);
            addRoutes(app, index);
            app.listen(port, [&listening](loopwire::ListenSocket* socket) {
                listening.set_value(socket != nullptr ? loopwire::App::localPort(socket) : -1);
            });
            app.run();
        });
        port = bound.get();
        if (port < 0) {
            std::fprintf(stderr, "thread %d failed to listen on port %d\n", index, args.port);
            std::exit(1);
        }
    }
    std::printf("listening on %d\n", port);
    std::fflush(stdout);
    for (std::thread& worker : workers)
        worker.join();
}

// The main thread accepts; the workers serve. Each worker hands its App's descriptor over, then runs: the
// descriptor keeps its loop running although it listens on nothing.
void runAcceptor(const ExampleArgs& args, int threads) {
    std::vector<std::thread> workers;
    loopwire::App acceptor(args.options);
    for (int index = 0; index < threads; ++index) {
        std::promise<loopwire::AppDescriptor> ready;
        std::future<loopwire::AppDescriptor> descriptor = ready.get_future();
        workers.emplace_back([&args, index, &ready] {
            loopwire::App app(args.options);
            addRoutes(app, index);
            ready.set_value(app.getDescriptor());
            app.run();
        });
        acceptor.addChildApp(descriptor.get());
    }
    acceptor.listen(args.port, [&args](loopwire::ListenSocket* socket) { ExampleArgs::announce(socket, args.port); })
        .run();
    for (std::thread& worker : workers)
        worker.join();
}

}  // namespace

int main(int argc, char** argv) {
    int threads = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
    bool acceptor = false;
    std::vector<char*> rest{argv[0]};
    for (int i = 1; i < argc; ++i) {
        if (std::strcmp(argv[i], "--acceptor") == 0) {
            acceptor = true;
        } else if (std::strcmp(argv[i], "--threads") == 0 && i + 1 < argc) {
            threads = std::max(1, std::atoi(argv[++i]));
        } else {
            rest.push_back(argv[i]);
        }
    }
    ExampleArgs args = ExampleArgs::parse(static_cast<int>(rest.size()), rest.data());
    if (acceptor) {
        runAcceptor(args, threads);
    } else {
        runReusePort(args, threads);
    }
}
