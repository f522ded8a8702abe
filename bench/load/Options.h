// Options: lwload's command line, parsed and checked against the limits before anything runs.
//
// parseOptions() is pure (it reads no file and opens no socket) so that every refusal can be unit-tested;
// main() then loads --body-file and resolves the target.
#pragma once

#include "Target.h"

#include <cstdint>
#include <string>
#include <vector>

namespace loopwire::lwload {

enum class LoadMode : std::uint8_t { Http, WebSocket, Fanout };

struct LoadOptions {
    LoadMode mode = LoadMode::Http;
    std::string url;
    TargetUrl target;
    bool allowRemote = false;

    // TLS (https://, wss://).
    std::string caFile;     // --cacert: verify the server's certificate against it; empty: no verification
    bool tlsResume = true;  // --tls-resume: offer a connection's last session when it is reopened

    std::uint32_t connections = 100;
    std::uint32_t threads = 1;
    double durationSeconds = 10.0;  // measured time; the time limit of a --requests run when given
    bool durationGiven = false;
    double warmupSeconds = 0.0;   // run before measuring, not counted
    double timeoutSeconds = 5.0;  // a request (or echo) outstanding longer than this is an error
    std::uint64_t requests = 0;   // stop after this many responses (or echoes); 0: run for the duration

    // HTTP.
    std::uint32_t pipeline = 1;
    std::string method = "GET";
    std::vector<std::string> headers;  // "Name: value", as given
    std::string bodyFile;              // --body-file, read by main()
    std::uint64_t bodySize = 0;        // --body-size
    bool hasBody = false;
    bool reconnect = false;  // --reconnect: close the connection after each batch's responses and open a new one

    // WebSocket (ws and fanout).
    std::uint64_t messageBytes = 20;
    bool text = false;

    // Fanout: messages in flight at most.
    std::uint32_t window = 8;
    // Fanout: --socket-io, speak socket.io (engine.io 4) on every connection (text messages).
    bool socketIo = false;
    // Fanout: --stamped, each message comes with "<epoch>:<offset>:" in front (loopwire's history).
    bool stamped = false;
    // Fanout: --settle, milliseconds between every subscriber having joined and the first message.
    std::uint32_t settleMs = 0;
    // Fanout: --split-url, a second server for every other subscriber (a cluster's second node); empty: none.
    std::string splitUrl;
    TargetUrl splitTarget;
};

struct ParseOutcome {
    bool ok = false;
    bool help = false;  // --help was given: print usageText() and exit 0
    std::string error;  // when !ok && !help
    LoadOptions options;
};

ParseOutcome parseOptions(int argc, const char* const* argv);

const char* usageText() noexcept;

// The bytes of one HTTP request built from the options: request line, Host (unless given with -H), the -H fields,
// Content-Length when there is a body, the blank line and the body.
std::string buildHttpRequest(const LoadOptions& options, const std::string& body);

}  // namespace loopwire::lwload
