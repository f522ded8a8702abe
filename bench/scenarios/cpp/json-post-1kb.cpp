// Scenario http/json-post-1kb: POST /json with a JSON object body (bench/scenarios/bodies/post-1kb.json). The
// body is read through onData, with onAborted (a body that arrives in one piece is parsed where it lies; pieces
// are collected in a pooled buffer), validated as JSON and answered with
// {"id":<id>,"keys":<members>,"bytes":<body length>}. Invalid JSON gets 400 {"error":"invalid json"}; a body over
// kMaxBodyBytes gets 413 and the connection is closed. Given --key and --cert, over TLS; with --http2, over
// HTTP/2 too (h2/post-1kb, h2c/post-1kb).
#include "BodyBuffers.h"
#include "JsonSummary.h"
#include "ScenarioApp.h"

#include <cstddef>
#include <cstdio>
#include <string>
#include <string_view>

namespace {

constexpr std::size_t kMaxBodyBytes = 64 * 1024;
constexpr std::size_t kMaxAnswerBytes = 128;

void answer(loopwire::HttpResponse* res, std::string_view body) {
    JsonSummary summary = summarizeJson(body);
    if (!summary.valid) {
        res->writeStatus("400 Bad Request")
            ->writeHeader("Content-Type", "application/json")
            ->end(R"({"error":"invalid json"})");
        return;
    }
    char text[kMaxAnswerBytes];
    int length = std::snprintf(text, sizeof text, R"({"id":%.*s,"keys":%zu,"bytes":%zu})",
                               static_cast<int>(summary.id.size()), summary.id.data(), summary.keys, body.size());
    res->writeHeader("Content-Type", "application/json")->end({text, static_cast<std::size_t>(length)});
}

}  // namespace

int main(int argc, char** argv) {
    BodyBuffers buffers;
    return runScenarioApp(argc, argv, [&buffers](auto& app) {
        app.post("/json", [&buffers](loopwire::HttpResponse* res, loopwire::HttpRequest*) {
            // The loop calls onData until isLast, or onAborted once; after either ends the response, neither
            // runs again, so the buffer goes back exactly once.
            BodyBuffers* pool = &buffers;
            std::string* body = pool->acquire();
            res->onAborted([pool, body] { pool->release(body); });
            res->onData([res, pool, body](std::string_view chunk, bool isLast) {
                if (body->empty() && isLast) {
                    answer(res, chunk);
                    pool->release(body);
                    return;
                }
                if (body->size() + chunk.size() > kMaxBodyBytes) {
                    pool->release(body);
                    res->writeStatus("413 Content Too Large")->end({}, true);
                    return;
                }
                body->append(chunk);
                if (!isLast) return;
                answer(res, *body);
                pool->release(body);
            });
        });
    });
}
