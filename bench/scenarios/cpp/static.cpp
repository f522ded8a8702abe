// Scenarios static/1kb, static/1mb and static/1mb-tls: every GET is answered from the folder given with --docroot
// by App::serveStatic at "/", with the default StaticFileOptions (files up to 256 KiB kept in memory and checked
// against the disk once a second; larger ones streamed, with sendfile(2) on plain TCP). With --key and --cert (the
// PEM files the runner makes for a TLS scenario) the App is an SSLApp. --port and --backend as in ScenarioArgs.
//
// SIGPIPE keeps its default action, as in a user's program: the core blocks it around sendfile(2) (which has no
// MSG_NOSIGNAL), so lwload resetting its connections in the middle of a file at the end of each run ends nothing.
#include "ScenarioArgs.h"

#include <cstdio>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

namespace {

struct StaticScenarioArgs {
    ScenarioArgs common;
    std::string docroot;

    // ScenarioArgs refuses what it does not know, so it is given the command line without --docroot.
    static StaticScenarioArgs parse(int argc, char** argv) {
        StaticScenarioArgs args;
        std::vector<char*> rest{argv[0]};
        for (int i = 1; i < argc; ++i) {
            if (std::strcmp(argv[i], "--docroot") == 0 && i + 1 < argc) {
                args.docroot = argv[++i];
            } else {
                rest.push_back(argv[i]);
            }
        }
        if (args.docroot.empty()) {
            std::fprintf(stderr,
                         "usage: %s --docroot DIR [--key KEY.pem --cert CERT.pem] [--port N] "
                         "[--backend epoll|libuv]\n",
                         argv[0]);
            std::exit(2);
        }
        args.common = ScenarioArgs::parse(static_cast<int>(rest.size()), rest.data());
        return args;
    }

    bool tls() const { return *common.keyFile != '\0' || *common.certFile != '\0'; }
};

}  // namespace

int main(int argc, char** argv) {
    const StaticScenarioArgs args = StaticScenarioArgs::parse(argc, argv);
    std::unique_ptr<loopwire::App> app;
    if (args.tls()) {
        app = std::make_unique<loopwire::SSLApp>(loopwire::SocketContextOptions{.key_file_name = args.common.keyFile,
                                                                                .cert_file_name = args.common.certFile},
                                                 args.common.options);
        if (app->constructorFailed()) {
            std::fprintf(stderr, "cannot load the key %s or the certificate %s: %s\n", args.common.keyFile,
                         args.common.certFile, app->constructionError().c_str());
            return 1;
        }
    } else {
        app = std::make_unique<loopwire::App>(args.common.options);
    }
    std::string error;
    if (!app->tryServeStatic("/", args.docroot, loopwire::StaticFileOptions{}, error)) {
        std::fprintf(stderr, "cannot serve %s: %s\n", args.docroot.c_str(), error.c_str());
        return 1;
    }
    app->listen(args.common.port,
                [&](loopwire::ListenSocket* socket) { ScenarioArgs::announce(socket, args.common.port); })
        .run();
}
