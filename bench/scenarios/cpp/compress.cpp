// Scenarios compress/json-50kb and compress/json-50kb-level6: GET /json answers with the JSON document read at
// start-up from the file given with --body (the run's document root: the same bytes every server answers), as
// application/json, under App::compress("/*"), which codes it anew for each request by its Accept-Encoding (gzip
// in these scenarios). --gzip-level N sets ResponseCompressionOptions::gzipLevel; without it the default stays
// (4). --port and --backend as in ScenarioArgs.
#include "ScenarioArgs.h"

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

namespace {

// The rule's pattern: every path, as a user's application codes every answer it sends.
constexpr const char* kEveryPath = "/*";

struct CompressScenarioArgs {
    ScenarioArgs common;
    std::string bodyFile;
    loopwire::ResponseCompressionOptions compression;

    [[noreturn]] static void usage(const char* program) {
        std::fprintf(stderr, "usage: %s --body FILE [--gzip-level 1-9] [--port N] [--backend epoll|libuv]\n", program);
        std::exit(2);
    }

    // ScenarioArgs refuses what it does not know, so it is given the command line without --body and --gzip-level.
    // A level out of range is left for App::compress to refuse, with its own message.
    static CompressScenarioArgs parse(int argc, char** argv) {
        CompressScenarioArgs args;
        std::vector<char*> rest{argv[0]};
        for (int i = 1; i < argc; ++i) {
            if (std::strcmp(argv[i], "--body") == 0 && i + 1 < argc) {
                args.bodyFile = argv[++i];
            } else if (std::strcmp(argv[i], "--gzip-level") == 0 && i + 1 < argc) {
                args.compression.gzipLevel = std::atoi(argv[++i]);
            } else {
                rest.push_back(argv[i]);
            }
        }
        if (args.bodyFile.empty()) usage(argv[0]);
        args.common = ScenarioArgs::parse(static_cast<int>(rest.size()), rest.data());
        return args;
    }
};

}  // namespace

int main(int argc, char** argv) {
    const CompressScenarioArgs args = CompressScenarioArgs::parse(argc, argv);
    std::ifstream in(args.bodyFile, std::ios::binary);
    const std::string json{std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
    if (json.empty()) {
        std::fprintf(stderr, "cannot read %s, or it is empty\n", args.bodyFile.c_str());
        return 1;
    }
    loopwire::App app(args.common.options);
    std::string error;
    if (!app.tryCompress(kEveryPath, args.compression, error)) {
        std::fprintf(stderr, "cannot compress %s: %s\n", kEveryPath, error.c_str());
        return 1;
    }
    app.get("/json",
            [&json](loopwire::HttpResponse* res, loopwire::HttpRequest*) {
                res->writeHeader("Content-Type", "application/json")->end(json);
            })
        .listen(args.common.port,
                [&](loopwire::ListenSocket* socket) { ScenarioArgs::announce(socket, args.common.port); })
        .run();
}
