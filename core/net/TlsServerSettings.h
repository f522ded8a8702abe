// TlsServerSettings: the settings every server SSL_CTX of loopwire gets, whatever its key and certificate:
// protocol versions, options, resumption, TLS 1.3 suites and key-exchange groups. Header-only and free of the rest
// of loopwire, so that bench/floor/TlsIdleFloor.cpp, which measures OpenSSL without loopwire, measures it with
// exactly these. The reasons are in docs/decisions/tls.md.
#pragma once

#include <openssl/crypto.h>
#include <openssl/err.h>
#include <openssl/ssl.h>

#include <cstddef>

namespace loopwire::tls {

inline constexpr unsigned char kSessionIdContext[] = "loopwire";
// Session tickets a full TLS 1.3 handshake issues: one, not OpenSSL's default two. Each costs an encryption and a
// record, and a client resumes with one.
inline constexpr std::size_t kTicketsPerHandshake = 1;
// TLS 1.3 suites, in the server's order of preference: AES-128-GCM first (10 AES rounds where AES-256 takes 14,
// with AES-NI both far beyond what anyone can break), as BoringSSL and Go order them; OpenSSL's default puts
// AES-256 first.
inline constexpr const char* kTls13Suites =
    "TLS_AES_128_GCM_SHA256:TLS_AES_256_GCM_SHA384:TLS_CHACHA20_POLY1305_SHA256";
// Key-exchange groups on OpenSSL 3.5 and newer, whose default puts the hybrid X25519MLKEM768 in a tuple of its own,
// first. Here X25519 (and P-256) come first and the hybrid group second: OpenSSL keeps the client's parsed ML-KEM
// key for the life of the connection, 6.6 KB of every idle connection's 28 KB, and the handshake costs more. A
// client that sends only a hybrid key share still gets it without a HelloRetryRequest: the server takes the first
// tuple holding a group the client sent a share for. Older OpenSSL (3.0) has no hybrid group and already puts
// X25519 first, so it keeps its default.
inline constexpr const char* kGroupsSince35 = "?X25519:?secp256r1 / ?X25519MLKEM768 / ?X448:?secp384r1:?secp521r1";
inline constexpr unsigned long kOpenSsl35 = 0x30500000UL;

// TLS 1.2 and 1.3, no renegotiation or compression, the server's order; OpenSSL's record buffers released while
// idle when releaseBuffers; resumption through tickets only (a server-side cache would cost an insertion and its
// lock per full handshake, and memory, for nothing tickets do not do); the suites and groups above.
inline void applyServerSettings(SSL_CTX* context, bool releaseBuffers) {
    SSL_CTX_set_min_proto_version(context, TLS1_2_VERSION);
    SSL_CTX_set_options(context, SSL_OP_NO_RENEGOTIATION | SSL_OP_CIPHER_SERVER_PREFERENCE | SSL_OP_NO_COMPRESSION);
    if (releaseBuffers) SSL_CTX_set_mode(context, SSL_MODE_RELEASE_BUFFERS);
    SSL_CTX_set_session_cache_mode(context, SSL_SESS_CACHE_OFF);
    SSL_CTX_set_num_tickets(context, kTicketsPerHandshake);
    SSL_CTX_set_session_id_context(context, kSessionIdContext, sizeof kSessionIdContext - 1);
    SSL_CTX_set_ciphersuites(context, kTls13Suites);
    if (OpenSSL_version_num() >= kOpenSsl35 && SSL_CTX_set1_groups_list(context, kGroupsSince35) != 1) {
        ERR_clear_error();  // keeps OpenSSL's own default
    }
}

}  // namespace loopwire::tls
