// nghttp2-cost: what nghttp2's server session costs per HTTP/2 stream on a warm connection, measured without a
// network: a client session (nghttp2's own) sends batches of GET requests as h2load sends them, the server session
// answers each with a 12-byte body, and the bytes pass between them in memory. Run under callgrind by
// nghttp2-cost.sh, which takes the difference of two runs: the server's instructions per stream (the inclusive cost
// of serverReceive and serverSend), with nothing of TLS, syscalls or an application in it. Printed directly: the
// server session's allocations per stream, through its nghttp2_mem.
//
//     nghttp2-cost <streams per batch> <streams in all> [options]
//
// Options (each a word on the command line):
//     pool            the server session's memory from per-size free lists (what a per-connection allocator does)
//     no-priorities   SETTINGS_NO_RFC7540_PRIORITIES = 1 (RFC 9113: no priority tree)
//     no-messaging    nghttp2_option_set_no_http_messaging: no HTTP semantics checks of header fields
//
// Written for docs/decisions/http2.md; builds against any nghttp2 from 1.52 (Debian 12) on.
#include <nghttp2/nghttp2.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <string>
#include <string_view>

namespace {

// ---- the server session's memory ----

struct Memory {
    bool counting = false;  // after the warm-up
    bool pooled = false;
    long allocations = 0;
    long bytes = 0;
    std::map<std::size_t, long> sizes;
};
Memory memory;

// A pooled block: its size class in front of it; classes of 96, 160 and 256 bytes hold what nghttp2 allocates per
// stream (measured: 80, 152 and 224), anything larger goes to malloc with class kUnpooled.
struct BlockHeader {
    BlockHeader* next;
    std::size_t sizeClass;
};
constexpr std::size_t kClassBytes[] = {96, 160, 256};
constexpr std::size_t kUnpooled = 99;
BlockHeader* freeLists[3] = {};

std::size_t classOf(std::size_t size) {
    for (std::size_t c = 0; c < 3; ++c) {
        if (size <= kClassBytes[c]) return c;
    }
    return kUnpooled;
}

void* allocate(std::size_t size, void*) {
    if (memory.counting) {
        ++memory.allocations;
        memory.bytes += static_cast<long>(size);
        ++memory.sizes[size];
    }
    if (!memory.pooled) return std::malloc(size);
    const std::size_t sizeClass = classOf(size);
    if (sizeClass != kUnpooled && freeLists[sizeClass] != nullptr) {
        BlockHeader* block = freeLists[sizeClass];
        freeLists[sizeClass] = block->next;
        return block + 1;
    }
    const std::size_t capacity = sizeClass == kUnpooled ? size : kClassBytes[sizeClass];
    auto* block = static_cast<BlockHeader*>(std::malloc(sizeof(BlockHeader) + capacity));
    block->sizeClass = sizeClass;
    return block + 1;
}

void release(void* pointer, void*) {
    if (pointer == nullptr) return;
    if (!memory.pooled) return std::free(pointer);
    BlockHeader* block = static_cast<BlockHeader*>(pointer) - 1;
    if (block->sizeClass == kUnpooled) return std::free(block);
    block->next = freeLists[block->sizeClass];
    freeLists[block->sizeClass] = block;
}

void* allocateZeroed(std::size_t count, std::size_t size, void* user) {
    void* pointer = allocate(count * size, user);
    std::memset(pointer, 0, count * size);
    return pointer;
}

void* reallocate(void* pointer, std::size_t size, void* user) {
    if (!memory.pooled) {
        if (memory.counting) ++memory.allocations;
        return std::realloc(pointer, size);
    }
    void* moved = allocate(size, user);
    if (pointer != nullptr) {
        const BlockHeader* block = static_cast<BlockHeader*>(pointer) - 1;
        const std::size_t old = block->sizeClass == kUnpooled ? size : kClassBytes[block->sizeClass];
        std::memcpy(moved, pointer, old < size ? old : size);
        release(pointer, user);
    }
    return moved;
}

// ---- the exchange ----

constexpr std::string_view kBody = "Hello world!";

nghttp2_nv field(std::string_view name, std::string_view value, std::uint8_t flags = NGHTTP2_NV_FLAG_NONE) {
    return {reinterpret_cast<std::uint8_t*>(const_cast<char*>(name.data())),
            reinterpret_cast<std::uint8_t*>(const_cast<char*>(value.data())), name.size(), value.size(), flags};
}

ssize_t readBody(nghttp2_session*, std::int32_t, std::uint8_t* into, std::size_t room, std::uint32_t* flags,
                 nghttp2_data_source*, void*) {
    const std::size_t length = kBody.size() < room ? kBody.size() : room;
    std::memcpy(into, kBody.data(), length);
    *flags |= NGHTTP2_DATA_FLAG_EOF;
    return static_cast<ssize_t>(length);
}

// The server answers a request once its HEADERS end the stream, as a handler calling end() at once would.
int onServerFrame(nghttp2_session* session, const nghttp2_frame* frame, void*) {
    if (frame->hd.type != NGHTTP2_HEADERS || (frame->hd.flags & NGHTTP2_FLAG_END_STREAM) == 0) return 0;
    constexpr std::uint8_t kNoCopy = NGHTTP2_NV_FLAG_NO_COPY_NAME | NGHTTP2_NV_FLAG_NO_COPY_VALUE;
    nghttp2_nv head[] = {field(":status", "200", kNoCopy), field("content-length", "12", kNoCopy)};
    nghttp2_data_provider body{};
    body.read_callback = readBody;
    nghttp2_submit_response(session, frame->hd.stream_id, head, 2, &body);
    return 0;
}

int ignoreHeader(nghttp2_session*, const nghttp2_frame*, const std::uint8_t*, std::size_t, const std::uint8_t*,
                 std::size_t, std::uint8_t, void*) {
    return 0;
}

int ignoreData(nghttp2_session*, std::uint8_t, std::int32_t, const std::uint8_t*, std::size_t, void*) { return 0; }

std::string wire;

// Each side's sending and receiving in functions of their own, never inlined nor folded together (the build passes
// -fno-ipa-icf), so that callgrind's inclusive costs separate the server's share from the client's.
[[gnu::noinline]] void drain(nghttp2_session* session) {
    wire.clear();
    const std::uint8_t* bytes = nullptr;
    ssize_t length = 0;
    while ((length = nghttp2_session_mem_send(session, &bytes)) > 0)
        wire.append(reinterpret_cast<const char*>(bytes), static_cast<std::size_t>(length));
}
[[gnu::noinline]] void clientSend(nghttp2_session* client) { drain(client); }
[[gnu::noinline]] void serverReceive(nghttp2_session* server) {
    nghttp2_session_mem_recv(server, reinterpret_cast<const std::uint8_t*>(wire.data()), wire.size());
}
[[gnu::noinline]] void serverSend(nghttp2_session* server) { drain(server); }
[[gnu::noinline]] void clientReceive(nghttp2_session* client) {
    nghttp2_session_mem_recv(client, reinterpret_cast<const std::uint8_t*>(wire.data()), wire.size());
}

}  // namespace

int main(int argc, char** argv) {
    if (argc < 3) {
        std::fprintf(stderr,
                     "usage: nghttp2-cost <streams per batch> <streams in all> [pool] [no-priorities] "
                     "[no-messaging]\n");
        return 2;
    }
    const int perBatch = std::atoi(argv[1]);
    const int total = std::atoi(argv[2]);
    bool noPriorities = false;
    bool noMessaging = false;
    for (int i = 3; i < argc; ++i) {
        const std::string_view option = argv[i];
        memory.pooled |= option == "pool";
        noPriorities |= option == "no-priorities";
        noMessaging |= option == "no-messaging";
    }
    constexpr int kWarmUpStreams = 1000;
    if (perBatch < 1 || perBatch > 100 || total <= kWarmUpStreams || total % perBatch != 0) {
        std::fprintf(stderr, "nghttp2-cost: batches of 1 to 100 streams, more than %d in all, a multiple of it\n",
                     kWarmUpStreams);
        return 2;
    }

    nghttp2_mem serverMemory{nullptr, allocate, release, allocateZeroed, reallocate};
    nghttp2_session_callbacks* serverCallbacks = nullptr;
    nghttp2_session_callbacks_new(&serverCallbacks);
    nghttp2_session_callbacks_set_on_frame_recv_callback(serverCallbacks, onServerFrame);
    nghttp2_session_callbacks_set_on_header_callback(serverCallbacks, ignoreHeader);
    nghttp2_option* serverOptions = nullptr;
    nghttp2_option_new(&serverOptions);
    if (noMessaging) nghttp2_option_set_no_http_messaging(serverOptions, 1);
    nghttp2_session* server = nullptr;
    nghttp2_session_server_new3(&server, serverCallbacks, nullptr, serverOptions, &serverMemory);

    nghttp2_session_callbacks* clientCallbacks = nullptr;
    nghttp2_session_callbacks_new(&clientCallbacks);
    nghttp2_session_callbacks_set_on_data_chunk_recv_callback(clientCallbacks, ignoreData);
    nghttp2_session* client = nullptr;
    nghttp2_session_client_new(&client, clientCallbacks, nullptr);

    nghttp2_settings_entry settings[] = {{NGHTTP2_SETTINGS_MAX_CONCURRENT_STREAMS, 100},
                                         {NGHTTP2_SETTINGS_NO_RFC7540_PRIORITIES, 1}};
    nghttp2_submit_settings(server, NGHTTP2_FLAG_NONE, settings, noPriorities ? 2 : 1);
    nghttp2_submit_settings(client, NGHTTP2_FLAG_NONE, nullptr, 0);

    // The fields h2load sends.
    nghttp2_nv request[] = {field(":method", "GET"), field(":path", "/"), field(":scheme", "https"),
                            field(":authority", "127.0.0.1:8443"), field("user-agent", "h2load nghttp2/1.52.0")};
    for (int sent = 0; sent < total; sent += perBatch) {
        if (sent == kWarmUpStreams) memory.counting = true;
        for (int i = 0; i < perBatch; ++i)
            nghttp2_submit_request(client, nullptr, request, 5, nullptr, nullptr);
        clientSend(client);
        serverReceive(server);
        serverSend(server);
        clientReceive(client);
        // The client's WINDOW_UPDATEs and SETTINGS acknowledgements, and what the server answers to them.
        clientSend(client);
        serverReceive(server);
        serverSend(server);
        clientReceive(client);
    }
    const double measured = total - kWarmUpStreams;
    std::printf("nghttp2 %s, %d streams per batch%s%s%s\n", nghttp2_version(0)->version_str, perBatch,
                memory.pooled ? ", pool" : "", noPriorities ? ", no-priorities" : "",
                noMessaging ? ", no-messaging" : "");
    std::printf("server nghttp2_mem allocations per stream: %.2f (%.0f bytes)\n", memory.allocations / measured,
                memory.bytes / measured);
    for (const auto& [size, count] : memory.sizes) {
        if (count >= measured / 2) std::printf("  %zu bytes: %.2f per stream\n", size, count / measured);
    }
    nghttp2_session_del(client);
    nghttp2_session_del(server);
    nghttp2_session_callbacks_del(clientCallbacks);
    nghttp2_session_callbacks_del(serverCallbacks);
    nghttp2_option_del(serverOptions);
    return 0;
}
