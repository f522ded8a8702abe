// ResponseCoder: the compression of handlers' responses (App::compress), as the HTTP layer sees it. The
// implementation, its rules and its compressors live in compress/ResponseCompressor, which http/ does not depend on;
// it is installed as the server's Compression extension and reached only for requests a rule matched, so that an App
// without rules pays one test per request.
//
// ResponseCoding is what a connection keeps for the response it is writing (reset for each request): the rule that
// matched its path, the coding negotiated from its Accept-Encoding, and what the handler's header fields said
// (HttpConnection reads them as they are written). Loop thread only.
#pragma once

#include "HttpServer.h"

#include <cstdint>
#include <optional>
#include <string_view>

namespace loopwire {

class HttpRequest;
class ResponseCoder;

struct ResponseCoding {
    static constexpr std::uint8_t kNoRule = 0xff;

    std::uint8_t rule = kNoRule;    // the rule that matched the request's path; kNoRule: not a compressed route
    std::uint8_t coding = 0;        // the coding negotiated (compress::ContentCoding); 0: identity
    bool compressibleType = false;  // the handler wrote a Content-Type of a compressible type
    bool declined = false;          // the handler's own fields rule compression out (Content-Encoding, a 206)
    bool varyWritten = false;       // the handler's Vary names Accept-Encoding already

    bool matched() const noexcept { return rule != kNoRule; }
    // Whether the body may be coded, as far as the head written so far says (the caller checks the rest: the
    // request's method, the status, the body's size).
    bool applies() const noexcept { return matched() && coding != 0 && compressibleType && !declined; }
    // Notes what a field the handler writes says for compression (Content-Type, Content-Encoding, Vary). Returns
    // true for a strong ETag the response must send weak (W/ before it): a coded body is not the same bytes, and a
    // weak tag is never wrong, coded or not. Both protocols' responses call it for every field while matched().
    bool noteField(const ResponseCoder& coder, std::string_view key, std::string_view value) noexcept;
};

// A compressor of one streamed response (opaque here).
class CodingStream;

// What encodeStream() does with what the coder holds after the input.
enum class StreamFlush : std::uint8_t {
    Keep,    // keep it for the coder's next block (more input follows: a sized body given in pieces)
    Sync,    // flush it, so that the client can decode everything so far (a write())
    Finish,  // the end of the stream, its trailer included
};

class ResponseCoder : public ServerExtension {
public:
    static constexpr ServerExtensionKind kKind = ServerExtensionKind::Compression;

    // Before the request's handlers run: the rule its path matches and the coding its Accept-Encoding and that rule
    // agree on, into coding (left as it is when no rule matches).
    virtual void negotiate(HttpRequest& request, std::string_view path, ResponseCoding& coding) noexcept = 0;
    virtual bool isCompressibleType(std::string_view contentType) const noexcept = 0;
    // The Content-Encoding token of coding's coding ("br", "zstd", "gzip").
    virtual std::string_view token(const ResponseCoding& coding) const noexcept = 0;
    // Bodies shorter than this go out as they are (end(), and tryEnd() by its totalSize).
    virtual std::uint64_t minBytes(const ResponseCoding& coding) const noexcept = 0;
    // A whole body coded; the view is into a buffer valid until the next call. nullopt when the coder failed (the
    // body then goes out as it is).
    virtual std::optional<std::string_view> encodeWhole(const ResponseCoding& coding, std::string_view body) = 0;
    // A compressor for a streamed body (pooled: no allocation once warm, brotli aside); null when none can be made.
    virtual CodingStream* beginStream(const ResponseCoding& coding) = 0;
    // input coded into a buffer valid until the next call, flushed as flush says. nullopt when the coder failed.
    virtual std::optional<std::string_view> encodeStream(CodingStream& stream, std::string_view input,
                                                         StreamFlush flush) = 0;
    // Gives the stream back, finished or not.
    virtual void endStream(CodingStream& stream) noexcept = 0;
};

}  // namespace loopwire
