// SocketContextOptions: the TLS material and settings of an SSLApp, with uWebSockets v20's field names.
//
//     loopwire::SSLApp app({.key_file_name = "key.pem", .cert_file_name = "cert.pem"});
//     if (app.constructorFailed()) { std::fprintf(stderr, "%s\n", app.constructionError().c_str()); return 1; }
//
// Keys, certificates and CA lists are PEM, read from a file (the *_file_name fields, as in uWebSockets) or given
// in memory (key, cert, ca: beyond uWebSockets). When both are given for the same item, the one in memory wins.
// Every view only needs to live until the SSLApp constructor (or addServerName) returns: the material is parsed
// and copied into OpenSSL's own structures there, and a problem with it (a missing file, a wrong passphrase, a
// key that does not match the certificate) is reported then, naming the field, never at the first connection.
#pragma once

#include <string_view>

namespace loopwire {

struct SocketContextOptions {
    // The private key, PEM; encrypted keys need passphrase.
    std::string_view key_file_name{};
    // The certificate chain, PEM: the server's certificate first, then its intermediates.
    std::string_view cert_file_name{};
    // The passphrase of an encrypted private key.
    std::string_view passphrase{};
    // Diffie-Hellman parameters, PEM, for the finite-field DHE cipher suites of TLS 1.2 (rarely wanted: ECDHE
    // needs none).
    std::string_view dh_params_file_name{};
    // CA certificates, PEM. When set, the server asks clients for a certificate and refuses the handshake of a
    // client whose certificate does not verify against them; a client may still send none (see
    // HttpResponse::getX509Certificate).
    std::string_view ca_file_name{};
    // An OpenSSL cipher list for TLS 1.2 and older ("ECDHE+AESGCM:ECDHE+CHACHA20"); TLS 1.3 suites are
    // OpenSSL's defaults.
    std::string_view ssl_ciphers{};
    // The key-exchange groups, as an OpenSSL group list ("X25519:secp256r1", or with OpenSSL 3.5's tuples
    // "X25519MLKEM768/X25519:secp256r1" to prefer the hybrid post-quantum group). Beyond uWebSockets. Empty:
    // X25519 first, then the hybrid X25519MLKEM768 where the OpenSSL has it, then the NIST curves; the hybrid
    // group costs each connection 6.6 KB for as long as it lasts (docs/decisions/tls.md).
    std::string_view ssl_groups{};
    // Frees each connection's TLS buffers while it is idle (OpenSSL's SSL_MODE_RELEASE_BUFFERS): less memory per
    // idle connection, a little more CPU per read.
    bool ssl_prefer_low_memory_usage = false;

    // PEM in memory, instead of the files above.
    std::string_view key{};
    std::string_view cert{};
    std::string_view ca{};
};

}  // namespace loopwire
