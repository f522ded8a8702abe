// The heap an idle server-side TLS connection costs OpenSSL itself, without loopwire: the floor under
// bench/scripts/idle-rss.js --tls. It makes a server SSL_CTX with the settings of every loopwire server
// (core/net/TlsServerSettings.h, header-only: SSL_MODE_RELEASE_BUFFERS when asked),
// then, one connection at a time over two memory BIOs shared by all of them, a client handshakes with a new server
// SSL, sends a 200-byte request and reads a 130-byte answer (the size of a WebSocket upgrade), and is freed. The
// server SSLs are kept, as an idle server keeps them, and the heap they hold is counted with mallinfo2 (every
// arena, small and mapped blocks).
//
// Two builds of the same source:
//   - a program on the system's OpenSSL (CMake target tls_idle_floor):  tls_idle_floor KEY CERT [N] [--low-memory]
//   - a Node-API addon on the OpenSSL inside a node executable (built by bench/scripts/idle-rss.js --floor, with
//     LW_FLOOR_NODE_ADDON defined): measure(key, cert, connections, lowMemory) returns the same figures.
#include "../../core/net/TlsServerSettings.h"

#include <openssl/bio.h>
#include <openssl/crypto.h>
#include <openssl/err.h>
#include <openssl/ssl.h>

#include <malloc.h>
#include <unistd.h>

#include <cstddef>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <string_view>
#include <vector>

namespace {

constexpr std::size_t kRequestBytes = 200;
constexpr std::size_t kAnswerBytes = 130;
// Rounds of the handshake loop before one side is declared stuck.
constexpr int kMaxHandshakeRounds = 16;

struct Floor {
    std::string opensslVersion;
    std::size_t connections = 0;
    double bytesAfterNew = 0;  // per server SSL, just created
    double bytesIdle = 0;      // per server SSL, handshaken, after one request and one answer
    double residentIdle = 0;   // the same as resident set size (what idle-rss.js reads), per SSL
    std::string error;
};

std::size_t heapInUse() {
    struct mallinfo2 info = mallinfo2();
    return info.uordblks + info.hblkhd;
}

std::size_t residentBytes() {
    std::FILE* statm = std::fopen("/proc/self/statm", "r");
    if (statm == nullptr) return 0;
    unsigned long size = 0;
    unsigned long resident = 0;
    int read = std::fscanf(statm, "%lu %lu", &size, &resident);
    std::fclose(statm);
    return read == 2 ? resident * static_cast<std::size_t>(sysconf(_SC_PAGESIZE)) : 0;
}

std::string lastError(const char* what) {
    char text[256] = {};
    ERR_error_string_n(ERR_get_error(), text, sizeof text);
    ERR_clear_error();
    return std::string(what) + ": " + text;
}

SSL_CTX* serverContext(const char* keyPath, const char* certPath, bool lowMemory, std::string& error) {
    SSL_CTX* context = SSL_CTX_new(TLS_server_method());
    loopwire::tls::applyServerSettings(context, lowMemory);
    if (SSL_CTX_use_certificate_chain_file(context, certPath) != 1 ||
        SSL_CTX_use_PrivateKey_file(context, keyPath, SSL_FILETYPE_PEM) != 1) {
        error = lastError("key or certificate");
        SSL_CTX_free(context);
        return nullptr;
    }
    return context;
}

// Drives both ends until neither wants to go on; returns whether both finished. Each side's state is read at
// once: the other side's write to the BIO it reads clears that BIO's retry flag.
bool handshake(SSL* client, SSL* server) {
    auto step = [](SSL* ssl, bool& done) {
        int result = SSL_do_handshake(ssl);
        done = result == 1;
        return done || SSL_get_error(ssl, result) == SSL_ERROR_WANT_READ;
    };
    bool clientDone = false;
    bool serverDone = false;
    for (int round = 0; round < kMaxHandshakeRounds; ++round) {
        if (!step(client, clientDone) || !step(server, serverDone)) return false;
        if (clientDone && serverDone) return true;
    }
    return false;
}

bool exchange(SSL* client, SSL* server) {
    char request[kRequestBytes];
    std::memset(request, 'q', sizeof request);
    char answer[kAnswerBytes];
    std::memset(answer, 'a', sizeof answer);
    char into[4096];
    if (SSL_write(client, request, sizeof request) != static_cast<int>(sizeof request)) return false;
    std::size_t got = 0;
    while (got < sizeof request) {
        int read = SSL_read(server, into, sizeof into);
        if (read <= 0) return false;
        got += static_cast<std::size_t>(read);
    }
    if (SSL_write(server, answer, sizeof answer) != static_cast<int>(sizeof answer)) return false;
    got = 0;
    while (got < sizeof answer) {
        int read = SSL_read(client, into, sizeof into);
        if (read <= 0) return false;
        got += static_cast<std::size_t>(read);
    }
    return true;
}

// Each SSL takes one reference to each of the two BIOs that it reads and writes.
void attach(SSL* ssl, BIO* reads, BIO* writes) {
    BIO_up_ref(reads);
    BIO_up_ref(writes);
    SSL_set_bio(ssl, reads, writes);
}

Floor measure(const char* keyPath, const char* certPath, std::size_t connections, bool lowMemory) {
    Floor floor;
    floor.opensslVersion = OpenSSL_version(OPENSSL_VERSION);
    floor.connections = connections;
    SSL_CTX* server = serverContext(keyPath, certPath, lowMemory, floor.error);
    if (server == nullptr) return floor;
    SSL_CTX* client = SSL_CTX_new(TLS_client_method());
    BIO* toServer = BIO_new(BIO_s_mem());
    BIO* toClient = BIO_new(BIO_s_mem());
    // An empty memory BIO says "try again", not end of file.
    BIO_set_mem_eof_return(toServer, -1);
    BIO_set_mem_eof_return(toClient, -1);
    std::vector<SSL*> sessions;
    sessions.reserve(connections);

    // One connection first, so that what OpenSSL sets up once (its providers' caches, the ticket keys) is in the
    // baseline.
    auto connectOne = [&]() -> SSL* {
        SSL* serverSide = SSL_new(server);
        SSL* clientSide = SSL_new(client);
        attach(serverSide, toServer, toClient);
        attach(clientSide, toClient, toServer);
        SSL_set_accept_state(serverSide);
        SSL_set_connect_state(clientSide);
        SSL_set_tlsext_host_name(clientSide, "localhost");
        bool ok = handshake(clientSide, serverSide) && exchange(clientSide, serverSide);
        SSL_free(clientSide);
        if (!ok) {
            floor.error = lastError("handshake");
            SSL_free(serverSide);
            return nullptr;
        }
        return serverSide;
    };
    if (SSL* first = connectOne()) SSL_free(first);

    std::size_t before = heapInUse();
    std::vector<SSL*> created;
    created.reserve(connections);
    for (std::size_t i = 0; i < connections; ++i)
        created.push_back(SSL_new(server));
    floor.bytesAfterNew = static_cast<double>(heapInUse() - before) / static_cast<double>(connections);
    for (SSL* ssl : created)
        SSL_free(ssl);

    before = heapInUse();
    std::size_t residentBefore = residentBytes();
    for (std::size_t i = 0; i < connections && floor.error.empty(); ++i) {
        if (SSL* session = connectOne()) sessions.push_back(session);
    }
    floor.bytesIdle = static_cast<double>(heapInUse() - before) / static_cast<double>(connections);
    floor.residentIdle = static_cast<double>(residentBytes() - residentBefore) / static_cast<double>(connections);

    for (SSL* session : sessions)
        SSL_free(session);
    BIO_free(toServer);
    BIO_free(toClient);
    SSL_CTX_free(client);
    SSL_CTX_free(server);
    return floor;
}

}  // namespace

#ifdef LW_FLOOR_NODE_ADDON

#include <node_api.h>

namespace {

std::string stringArgument(napi_env env, napi_value value) {
    std::size_t length = 0;
    napi_get_value_string_utf8(env, value, nullptr, 0, &length);
    std::string text(length, '\0');
    napi_get_value_string_utf8(env, value, text.data(), length + 1, &length);
    return text;
}

void setNumber(napi_env env, napi_value object, const char* name, double number) {
    napi_value value;
    napi_create_double(env, number, &value);
    napi_set_named_property(env, object, name, value);
}

void setString(napi_env env, napi_value object, const char* name, const std::string& text) {
    napi_value value;
    napi_create_string_utf8(env, text.data(), text.size(), &value);
    napi_set_named_property(env, object, name, value);
}

napi_value measureFromJs(napi_env env, napi_callback_info info) {
    std::size_t count = 4;
    napi_value arguments[4];
    napi_get_cb_info(env, info, &count, arguments, nullptr, nullptr);
    if (count < 4) {
        napi_throw_type_error(env, nullptr, "measure(key, cert, connections, lowMemory)");
        return nullptr;
    }
    std::string key = stringArgument(env, arguments[0]);
    std::string cert = stringArgument(env, arguments[1]);
    double connections = 0;
    bool lowMemory = false;
    napi_get_value_double(env, arguments[2], &connections);
    napi_get_value_bool(env, arguments[3], &lowMemory);
    if (!(connections >= 1)) {
        napi_throw_range_error(env, nullptr, "connections: at least 1");
        return nullptr;
    }
    Floor floor = measure(key.c_str(), cert.c_str(), static_cast<std::size_t>(connections), lowMemory);
    if (!floor.error.empty()) {
        napi_throw_error(env, nullptr, floor.error.c_str());
        return nullptr;
    }
    napi_value result;
    napi_create_object(env, &result);
    setString(env, result, "openssl", floor.opensslVersion);
    setNumber(env, result, "connections", static_cast<double>(floor.connections));
    setNumber(env, result, "bytesAfterNew", floor.bytesAfterNew);
    setNumber(env, result, "bytesIdle", floor.bytesIdle);
    setNumber(env, result, "residentIdle", floor.residentIdle);
    return result;
}

napi_value initialize(napi_env env, napi_value exports) {
    napi_value function;
    napi_create_function(env, "measure", NAPI_AUTO_LENGTH, measureFromJs, nullptr, &function);
    napi_set_named_property(env, exports, "measure", function);
    return exports;
}

}  // namespace

NAPI_MODULE(NODE_GYP_MODULE_NAME, initialize)

#else

int main(int argc, char** argv) {
    if (argc < 3) {
        std::fprintf(stderr, "usage: %s KEY CERT [CONNECTIONS] [--low-memory]\n", argv[0]);
        return 2;
    }
    std::size_t connections = 2000;
    bool lowMemory = false;
    for (int i = 3; i < argc; ++i) {
        if (std::string_view(argv[i]) == "--low-memory")
            lowMemory = true;
        else
            connections = std::strtoul(argv[i], nullptr, 10);
    }
    if (connections == 0) {
        std::fprintf(stderr, "CONNECTIONS: at least 1\n");
        return 2;
    }
    Floor floor = measure(argv[1], argv[2], connections, lowMemory);
    if (!floor.error.empty()) {
        std::fprintf(stderr, "%s\n", floor.error.c_str());
        return 1;
    }
    std::printf(
        "%s, %zu server connections%s: SSL_new %.0f B, idle after a handshake and one exchange %.0f B "
        "(resident set: %.0f B)\n",
        floor.opensslVersion.c_str(), floor.connections, lowMemory ? ", SSL_MODE_RELEASE_BUFFERS" : "",
        floor.bytesAfterNew, floor.bytesIdle, floor.residentIdle);
    return 0;
}

#endif
