// MemoryTlsPair: a server TlsSession and a client (TlsClient) joined by two in-memory queues, so that TLS is tested
// without a socket (Beast's test::stream is the model). Nothing moves until the test calls pump(), which hands each
// side what the other wrote, in chunks of a chosen size, until both are quiet.
//
// The server side works as a Socket drives it: each read is one decrypt() of the bytes delivered, into a plaintext
// buffer of the size a socket gives (the input plus one record), with its records written to a buffer that stands in
// for the loop's record buffer and is emptied after each call. A fault can be injected at the Nth read (bytes the
// server is given) or write (records the server sends): one byte of it corrupted, or the connection cut there (no
// more bytes move either way), so that a test can walk every point of a handshake and an exchange.
#pragma once

#include "base/ByteBuffer.h"
#include "net/TlsClient.h"
#include "net/TlsContext.h"
#include "net/TlsSession.h"

#include <gtest/gtest.h>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace loopwire::test {

// A self-signed P-256 certificate for "localhost", PEM, made once per process with OpenSSL's API.
struct SelfSignedCertificate {
    std::string keyPem;
    std::string certPem;
    static const SelfSignedCertificate& get();
};

// A server context with that certificate (and any further options); fails the test when it does not load.
std::unique_ptr<TlsContext> makeServerContext(SocketContextOptions options = {});

// The TLS records in bytes (headers walked; a trailing partial record is not counted), of one content type or all.
std::size_t countRecords(std::string_view bytes, int contentType = -1);
inline constexpr int kApplicationData = 23;

class MemoryTlsPair {
public:
    enum class Fault { Corrupt, Cut };
    enum class Side { Read, Write };

    // serverName is what the client asks for (SNI) and expects; its certificate is not verified.
    explicit MemoryTlsPair(TlsContext& context, std::string serverName = "localhost");

    // Delivers bytes both ways, chunk bytes at a time, until neither side has anything to send or a side failed.
    void pump(std::size_t chunk = 1u << 20);
    // pump(), then whether both ends are established.
    bool handshake(std::size_t chunk = 1u << 20);
    // From the client to the server, and back: the plaintext goes through send()/encrypt() and pump().
    void clientSends(std::string_view plaintext);
    // Seals plaintext on the server side, pumps (chunk bytes at a time) and returns the records.
    std::string serverSends(std::string_view plaintext, std::size_t chunk = 1u << 20);
    void serverClosesNotify();

    // The Nth (from 1) read or write of the server gets fault.
    void injectFault(Side side, std::size_t nth, Fault fault) noexcept {
        faultSide_ = side;
        faultAt_ = nth;
        fault_ = fault;
    }
    bool faultHappened() const noexcept { return faultHappened_; }
    bool isCut() const noexcept { return cut_; }

    TlsSession& server() noexcept { return *server_; }
    // Goes on with another session object holding the connection (a socket that changed protocol).
    void useServer(TlsSession& session) noexcept { server_ = &session; }
    TlsClient& client() noexcept { return *client_; }
    bool serverFailed() const noexcept { return lastServerResult_ == TlsSession::ReadResult::Failed; }
    bool serverSawCloseNotify() const noexcept { return lastServerResult_ == TlsSession::ReadResult::PeerClosed; }
    const std::string& serverReceived() const noexcept { return serverReceived_; }
    std::string clientReceived() const { return std::string(clientReceived_.view()); }
    std::size_t reads() const noexcept { return reads_; }

private:
    bool applyFault(Side side, std::string& bytes);
    void deliverToServer(std::string_view bytes);
    void deliverToClient(std::string_view bytes);

    TlsContext& context_;
    TlsSession own_;
    TlsSession* server_ = &own_;
    std::unique_ptr<TlsClient> client_;
    std::string toClient_;  // the server's records not yet delivered
    std::string serverReceived_;
    ByteBuffer clientReceived_;
    ByteBuffer records_;  // stands in for the loop's record buffer
    std::vector<char> plaintext_;
    TlsSession::ReadResult lastServerResult_ = TlsSession::ReadResult::Ok;
    std::size_t reads_ = 0;
    std::size_t writes_ = 0;
    Side faultSide_ = Side::Read;
    std::size_t faultAt_ = 0;
    Fault fault_ = Fault::Corrupt;
    bool faultHappened_ = false;
    bool cut_ = false;
};

}  // namespace loopwire::test
