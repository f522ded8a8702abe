// Scenario http/headers: GET /headers reads three request headers (x-request-id, accept, user-agent) and two
// query parameters (user, lang), and answers with three headers (X-Request-Id echoed, Content-Type,
// Cache-Control) and a body made of what it read: "user=U lang=L accept=A agent=G". An answer longer than
// kMaxAnswerBytes is refused with 400, as in the JavaScript servers, so that no input can overrun the buffer.
// Given --key and --cert, over TLS; with --http2, over HTTP/2 too (h2/headers, h2c/headers).
#include "ScenarioApp.h"

#include <cstddef>
#include <cstring>
#include <string_view>

namespace {

constexpr std::size_t kMaxAnswerBytes = 512;

// Appends pieces into a fixed buffer; remembers an overflow instead of writing past the end.
class AnswerBuilder {
public:
    AnswerBuilder& add(std::string_view piece) {
        if (piece.size() > kMaxAnswerBytes - used_) {
            overflow_ = true;
            return *this;
        }
        std::memcpy(bytes_ + used_, piece.data(), piece.size());
        used_ += piece.size();
        return *this;
    }
    bool overflow() const { return overflow_; }
    std::string_view view() const { return {bytes_, used_}; }

private:
    char bytes_[kMaxAnswerBytes];
    std::size_t used_ = 0;
    bool overflow_ = false;
};

}  // namespace

int main(int argc, char** argv) {
    return runScenarioApp(argc, argv, [](auto& app) {
        app.get("/headers", [](loopwire::HttpResponse* res, loopwire::HttpRequest* req) {
            std::string_view requestId = req->getHeader("x-request-id");
            AnswerBuilder answer;
            answer.add("user=").add(req->getQuery("user"));
            answer.add(" lang=").add(req->getQuery("lang"));
            answer.add(" accept=").add(req->getHeader("accept"));
            answer.add(" agent=").add(req->getHeader("user-agent"));
            if (answer.overflow()) {
                res->writeStatus("400 Bad Request")->end("too long");
                return;
            }
            res->writeHeader("X-Request-Id", requestId)
                ->writeHeader("Content-Type", "text/plain; charset=utf-8")
                ->writeHeader("Cache-Control", "no-store")
                ->end(answer.view());
        });
    });
}
