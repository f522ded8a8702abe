// The command line of the TLS scenario servers: the others' (ScenarioArgs: --port, --backend) and
// --key PATH --cert PATH, the PEM files the A/B runner makes with the openssl command for each run
// (bench/ab/tls.js). Exits with status 2 and a usage line when either is missing.
#pragma once

#include "ScenarioArgs.h"

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

struct TlsScenarioArgs {
    ScenarioArgs common;
    std::string keyFile;
    std::string certFile;

    // Whether --key and --cert are required (the https-* servers), or may both be left out (the servers that run
    // on an App, or, given them, on an SSLApp: ScenarioApp.h).
    enum class Material { Required, Optional };

    static TlsScenarioArgs parse(int argc, char** argv, Material material = Material::Required) {
        TlsScenarioArgs args;
        // ScenarioArgs refuses what it does not know, so it is given the command line without the TLS options.
        std::vector<char*> rest{argv[0]};
        for (int i = 1; i < argc; ++i) {
            if (std::strcmp(argv[i], "--key") == 0 && i + 1 < argc) {
                args.keyFile = argv[++i];
            } else if (std::strcmp(argv[i], "--cert") == 0 && i + 1 < argc) {
                args.certFile = argv[++i];
            } else {
                rest.push_back(argv[i]);
            }
        }
        const bool neither = args.keyFile.empty() && args.certFile.empty();
        if ((args.keyFile.empty() || args.certFile.empty()) && !(neither && material == Material::Optional)) {
            std::fprintf(stderr, "usage: %s --key KEY.pem --cert CERT.pem [--port N] [--backend epoll|libuv]\n",
                         argv[0]);
            std::exit(2);
        }
        args.common = ScenarioArgs::parse(static_cast<int>(rest.size()), rest.data());
        return args;
    }

    // Whether a key and certificate were given.
    bool tls() const { return !keyFile.empty(); }

    loopwire::SocketContextOptions material() const {
        return loopwire::SocketContextOptions{.key_file_name = keyFile, .cert_file_name = certFile};
    }

    // Whether app could not load the key and certificate (and says so on stderr): the server then exits with 1.
    bool refusedBy(const loopwire::SSLApp& app) const {
        if (!app.constructorFailed()) return false;
        std::fprintf(stderr, "cannot load the key %s or the certificate %s: %s\n", keyFile.c_str(), certFile.c_str(),
                     app.constructionError().c_str());
        return true;
    }
};
