// TlsContext: the server side of TLS for the sockets of one server: OpenSSL's SSL_CTX with the key, the
// certificate chain and the settings of a SocketContextOptions, the contexts of further server names (SNI), and
// the one BIO through which every session of this context reads and writes.
//
// Creation: create() loads and checks the material (it allocates; set-up time) and returns null with a message
// naming the faulty option. addServerName() does the same for one more name.
// Server names: a ClientHello's server name picks the context added for it: an exact name first ("example.com"),
// then a wildcard that covers its first label ("*.example.com" covers "a.example.com", not "example.com" nor
// "a.b.example.com"); names compare without regard to case. A name no context covers is first given to the
// missing-server-name handler, which may add it, for this very handshake; else the default context answers.
// Sessions: see TlsSession. A session's call into OpenSSL opens a Call on its context, which points the BIO at that
// call's ciphertext and record buffer; the context holds no bytes between calls.
// Protocol: TLS 1.2 and 1.3; ALPN picks "h2" when offerHttp2() was called and the client offers it, else
// "http/1.1" when the client offers it (and no protocol otherwise);
// renegotiation is refused; session resumption through tickets (TLS 1.3) and the session cache (TLS 1.2).
// Threading: the loop thread of the server that owns it.
#pragma once

#include "base/ByteBuffer.h"
#include "base/Check.h"

#include <loopwire/InlineFunction.h>
#include <loopwire/SocketContextOptions.h>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

using SSL_CTX = struct ssl_ctx_st;
using SSL = struct ssl_st;
using BIO = struct bio_st;

namespace loopwire {

class TlsSession;

class TlsContext {
public:
    // Runs during a handshake whose server name no context covers (hostname as the client sent it).
    using MissingServerNameHandler = InlineFunction<void(std::string_view hostname), 48>;

    // What TLS sessions of this context do when the peer is slow to finish its handshake: closed after
    // handshakeTimeoutMs on the loop's timeout clock.
    static std::unique_ptr<TlsContext> create(const SocketContextOptions& options, std::uint32_t handshakeTimeoutMs,
                                              std::string& error);
    ~TlsContext();
    TlsContext(const TlsContext&) = delete;
    TlsContext& operator=(const TlsContext&) = delete;

    SSL_CTX* handle() const noexcept { return context_; }
    std::uint32_t handshakeTimeoutMs() const noexcept { return handshakeTimeoutMs_; }

    // Adds (or replaces) the context for pattern: a host name, or "*." and a domain. Returns false, and changes
    // nothing, when the material fails to load (error names the option) or the pattern is empty.
    bool addServerName(std::string_view pattern, const SocketContextOptions& options, std::string& error);
    // ALPN offers "h2" from now on (the server speaks HTTP/2: App's http2 option).
    void offerHttp2() noexcept { offersHttp2_ = true; }
    // OpenSSL's ALPN callback, for every context of this server (see the .cpp).
    static int selectProtocol(SSL* ssl, const unsigned char** selected, unsigned char* selectedLength,
                              const unsigned char* offered, unsigned int offeredLength, void* unused);
    // Returns whether the pattern had a context. Sessions that use it keep it until they end.
    bool removeServerName(std::string_view pattern);
    void setMissingServerNameHandler(MissingServerNameHandler handler) { onMissingServerName_ = std::move(handler); }
    // The pattern that covers hostname, or an empty view.
    std::string_view findServerName(std::string_view hostname) const noexcept;
    // Data the owner keeps for pattern (its routes): a session whose handshake picks pattern carries it (see
    // TlsSession::serverNameData). Kept when pattern's material is replaced; returns false for an unknown pattern.
    bool setServerNameData(std::string_view pattern, void* data) noexcept;

    // The BIO through which every session of this context reads and writes, within a Call. Sessions take a
    // reference each.
    BIO* bio() const noexcept { return bio_; }

    // One session's call into OpenSSL: while it lasts, the BIO's reads take from input and its writes append to
    // records, and the server-name callback finds the session. Calls nest (a handler run inside a handshake may
    // close other connections, which send close_notify); each restores the one it interrupted.
    class Call {
    public:
        // Inline: two of them per request (one to read it, one to seal the answer).
        Call(TlsContext& context, TlsSession& session, std::string_view input, ByteBuffer& records) noexcept
            : context_(context), session_(session), input_(input), records_(records), interrupted_(context.call_) {
            // A session is inside at most one call at a time: a nested call is another session's.
            for (Call* outer = interrupted_; LW_CHECKS_ENABLED && outer != nullptr; outer = outer->interrupted_)
                LW_CHECK(&outer->session_ != &session);
            context_.call_ = this;
        }
        ~Call() {
            LW_CHECK(context_.call_ == this);
            context_.call_ = interrupted_;
        }
        Call(const Call&) = delete;
        Call& operator=(const Call&) = delete;
        // The input the BIO has not read yet.
        std::size_t inputLeft() const noexcept { return input_.size(); }
        // What the BIO does: takes up to capacity bytes of the input; appends to the records.
        std::size_t takeInput(char* into, std::size_t capacity) noexcept;
        void addRecords(std::string_view bytes) { records_.append(bytes); }
        TlsSession& session() const noexcept { return session_; }

    private:
        TlsContext& context_;
        TlsSession& session_;
        std::string_view input_;
        ByteBuffer& records_;
        Call* interrupted_;
    };
    // The call in progress, or null.
    Call* currentCall() const noexcept { return call_; }

private:
    struct ServerName {
        std::string pattern;  // lower case
        SSL_CTX* context;
        void* data = nullptr;
    };

    TlsContext(SSL_CTX* context, BIO* bio, std::uint32_t handshakeTimeoutMs) noexcept;
    static int selectServerName(SSL* ssl, int* alert, void* self);
    // The server name that covers hostname (exactly or by wildcard), or null.
    const ServerName* find(std::string_view hostname) const noexcept;
    // The entry of pattern itself (compared without case), or end().
    std::vector<ServerName>::iterator named(std::string_view pattern) noexcept;

    SSL_CTX* context_;
    BIO* bio_;
    std::uint32_t handshakeTimeoutMs_;
    std::vector<ServerName> serverNames_;
    MissingServerNameHandler onMissingServerName_;
    Call* call_ = nullptr;
    bool offersHttp2_ = false;
};

}  // namespace loopwire
