// Replays the 166 llhttp request cases of shared/conformance over real sockets, on both backends: each case in
// one write, and split at every byte boundary into two writes that the server reads separately (the test waits
// until the server's loop has handled the first part). The verdict is read off the wire:
//   accept       the expected number of responses, and the connection stays open (unless the last response
//                said Connection: close, as the answer to HTTP/1.0 or to Connection: close does)
//   close-after  the responses, then the server closes
//   reject       the responses to the good requests, then the error status of the refusal, then close
//   wait         no byte at all, and the connection stays open
//   upgrade      the responses (loopwire has no upgrade yet: it answers the request as an ordinary one)
// Deviations from llhttp's verdicts are the parser's (tests/unit/http/ConformanceDeviations.h).
#include "../unit/http/ConformanceCases.h"
#include "../unit/http/ConformanceDeviations.h"
#include "Fixture.h"

#include <openssl/ssl.h>

#include <memory>
#include <string>

namespace loopwire::test {
namespace {

class ConformanceReplay : public BackendTest {
protected:
    void SetUp() override {
        serve([](App& app) {
            app.any("/*", [](HttpResponse* res, HttpRequest*) {
                res->onAborted([] {});
                res->onData([res](std::string_view, bool isLast) {
                    if (isLast) res->end("ok");
                });
            });
        });
    }

    // Over TLS, every connection after the first resumes the first one's session: the replay is about how the
    // server reads a request split anywhere, not about the handshake (TlsTest's), and a full handshake costs
    // OpenSSL 3 (parsing and verifying the certificate, a signature each way) most of what the replay takes.
    std::unique_ptr<TestClient> connect() {
        const TlsClientOptions* tls = defaultClientTls();
        if (tls == nullptr) return std::make_unique<TestClient>(port());
        TlsClientOptions resuming = *tls;
        resuming.resume = session_.get();
        return std::make_unique<TestClient>(port(), resuming);
    }

    // Keeps a client's session once it can be resumed (its ticket has come, which a read of a response ensures).
    void keepSession(const TestClient& client) {
        if (session_ || !client.isTls()) return;
        std::unique_ptr<SSL_SESSION, decltype(&SSL_SESSION_free)> session(client.takeSession(), SSL_SESSION_free);
        if (session && SSL_SESSION_is_resumable(session.get()) == 1) session_ = std::move(session);
    }

    // Two round trips through the server's loop: bytes sent before the first are handled after the second.
    void settle() {
        server().runOnLoop([](App&) {});
        server().runOnLoop([](App&) {});
    }

    // Sends bytes (split at cut, unless 0) and checks the verdict; returns a failure description or "".
    std::string check(const ConformanceCase& c, const std::string& bytes, std::size_t cut) {
        const Deviation* deviation = deviationFor(c.id);
        std::string expect = deviation ? deviation->expect : c.expect;
        int messages = deviation ? deviation->messages : c.messages;
        HttpError error = deviation ? deviation->error : HttpError::None;

        std::unique_ptr<TestClient> connection = connect();
        TestClient& client = *connection;
        if (cut == 0) {
            client.send(bytes);
        } else {
            client.send(bytes.substr(0, cut));
            settle();
            client.send(bytes.substr(cut));
        }
        settle();
        bool closing = false;
        bool head = bytes.rfind("HEAD ", 0) == 0;
        for (int i = 0; i < messages; ++i) {
            auto response = client.readResponse(head);
            if (!response) return "response " + std::to_string(i + 1) + " missing";
            if (response->status != 200 && response->status != 404) {
                return "response " + std::to_string(i + 1) + " has status " + std::to_string(response->status);
            }
            closing = response->header("connection") == "close";
            keepSession(client);
        }
        if (expect == "accept" && closing) {
            // The request itself asked to close (Connection: close, or HTTP/1.0): accepted, then closed.
            if (!client.waitForClose()) return "not closed after a closing response";
        } else if (expect == "accept" || expect == "wait") {
            settle();
            if (!client.idleNow()) return "unexpected bytes or close after " + std::to_string(messages) + " responses";
        } else if (expect == "close-after") {
            if (!client.waitForClose()) return "not closed after the responses";
        } else if (expect == "reject") {
            auto refusal = client.readResponse();
            if (!refusal) return "no error response";
            // Without the parser's own error name (llhttp's cases), any 4xx or 505 will do.
            bool statusOk = error == HttpError::None ? (refusal->status >= 400 && refusal->status <= 505)
                                                     : refusal->status == statusFor(error);
            if (!statusOk) return "error status " + std::to_string(refusal->status);
            if (!client.waitForClose()) return "not closed after the error response";
        }
        return {};
    }

private:
    std::unique_ptr<SSL_SESSION, decltype(&SSL_SESSION_free)> session_{nullptr, SSL_SESSION_free};
};
LW_INSTANTIATE_TRANSPORTS(ConformanceReplay);

TEST_P(ConformanceReplay, EveryCaseWholeAndSplitAtEveryByte) {
    const auto cases = loadConformanceCases();
    ASSERT_EQ(cases.size(), 166u);
    int failures = 0;
    for (const ConformanceCase& c : cases) {
        std::string bytes = withHostWhereMissing(c.raw);
        for (std::size_t cut = 0; cut < bytes.size(); ++cut) {
            std::string failure = check(c, bytes, cut);
            if (!failure.empty()) {
                ADD_FAILURE() << "case " << c.id << " (" << c.name << ")"
                              << (cut == 0 ? std::string(" whole") : " split at " + std::to_string(cut)) << ": "
                              << failure;
                ++failures;
                break;  // one report per case
            }
        }
        if (failures > 10) break;
    }
}

}  // namespace
}  // namespace loopwire::test
