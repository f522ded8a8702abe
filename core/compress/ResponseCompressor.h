// ResponseCompressor: App::compress's rules and compressors, installed as the HTTP server's ResponseCoder
// (Compression extension) by the first rule.
//
// A rule is a route pattern with the codings it offers, their order of preference, the minimum body and the levels.
// negotiate() finds the first rule whose pattern matches the request's path (route order, any method) and weighs the
// request's Accept-Encoding against the rule's codings. Compressors are pooled per rule and coding, each reset after
// its response, so that coding a body allocates nothing once warm: gzip and zstd keep their state; brotli, which has
// no reset, makes a new one per response. One output buffer per server holds what the last call coded. Loop thread
// only.
#pragma once

#include "compress/AcceptEncoding.h"
#include "compress/Encoder.h"
#include "http/ResponseCoder.h"
#include "http/Router.h"

#include <loopwire/ResponseCompressionOptions.h>

#include <array>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace loopwire {

// One pooled compressor.
class CodingStream {
public:
    explicit CodingStream(std::unique_ptr<compress::Encoder> encoder) noexcept : encoder_(std::move(encoder)) {}
    compress::Encoder& encoder() noexcept { return *encoder_; }
    std::uint8_t rule = ResponseCoding::kNoRule;

private:
    std::unique_ptr<compress::Encoder> encoder_;
};

namespace compress {

class ResponseCompressor final : public ResponseCoder {
public:
    // Rules one App may have: each is a route of its own router, and a byte names it in every connection.
    static constexpr std::size_t kMaxRules = 64;

    // The compressor of http, created (and installed) on first use.
    static ResponseCompressor& of(HttpServer& http);

    // Adds a rule; false, with error saying why and nothing added, for a malformed pattern, a pattern that has a
    // rule already, an unknown coding, a level out of range or more than kMaxRules. Allocates (set-up time).
    bool addRule(std::string_view pattern, const ResponseCompressionOptions& options, std::string& error);

    void negotiate(HttpRequest& request, std::string_view path, ResponseCoding& coding) noexcept override;
    bool isCompressibleType(std::string_view contentType) const noexcept override;
    std::string_view token(const ResponseCoding& coding) const noexcept override;
    std::uint64_t minBytes(const ResponseCoding& coding) const noexcept override;
    std::optional<std::string_view> encodeWhole(const ResponseCoding& coding, std::string_view body) override;
    CodingStream* beginStream(const ResponseCoding& coding) override;
    std::optional<std::string_view> encodeStream(CodingStream& stream, std::string_view input,
                                                 StreamFlush flush) override;
    void endStream(CodingStream& stream) noexcept override;

    void close() noexcept override {}
    std::size_t connectionCount() const noexcept override { return 0; }

    // Compressors made so far and idle now (tests).
    std::size_t idleStreams() const noexcept;

private:
    struct Rule {
        CodingSet offered;
        std::array<ContentCoding, 3> preference{};
        std::size_t preferenceCount = 0;
        std::uint64_t minBytes = 0;
        std::array<int, 4> levels{};  // by ContentCoding
        // Idle compressors, by ContentCoding. One handed out belongs to its connection until endStream(), which
        // every connection calls as it closes.
        std::array<std::vector<std::unique_ptr<CodingStream>>, 4> idle;
    };

    Router router_;
    std::vector<std::unique_ptr<Rule>> rules_;
    ByteBuffer output_;
};

}  // namespace compress
}  // namespace loopwire
