#include "ResponseCompressor.h"

#include "static/MimeTypes.h"

#include <loopwire/HttpRequest.h>

#include <algorithm>

namespace loopwire::compress {

namespace {

struct CodingName {
    std::string_view name;
    ContentCoding coding;
    int minLevel;
    int maxLevel;
};

constexpr std::array<CodingName, 3> kCodingNames{{
    {"br", ContentCoding::Brotli, 0, 11},
    {"zstd", ContentCoding::Zstd, 1, 19},
    {"gzip", ContentCoding::Gzip, 1, 9},
}};

std::size_t indexOf(ContentCoding coding) noexcept { return static_cast<std::size_t>(coding); }

}  // namespace

ResponseCompressor& ResponseCompressor::of(HttpServer& http) { return http.installedExtension<ResponseCompressor>(); }

bool ResponseCompressor::addRule(std::string_view pattern, const ResponseCompressionOptions& options,
                                 std::string& error) {
    if (rules_.size() == kMaxRules) {
        error = "compress: more than " + std::to_string(kMaxRules) + " patterns";
        return false;
    }
    auto rule = std::make_unique<Rule>();
    for (const std::string& name : options.codings) {
        const auto* known = std::find_if(kCodingNames.begin(), kCodingNames.end(),
                                         [&](const CodingName& entry) { return entry.name == name; });
        if (known == kCodingNames.end()) {
            error = "compress: codings: \"" + name + "\" is not one of \"br\", \"zstd\", \"gzip\"";
            return false;
        }
        if (rule->offered.contains(known->coding)) continue;
        // A coding this process cannot make is left out, so that one list serves every Node.
        if (!Encoder::available(known->coding)) continue;
        rule->offered.add(known->coding);
        rule->preference[rule->preferenceCount++] = known->coding;
    }
    const std::array<std::pair<const CodingName&, int>, 3> levels{{
        {kCodingNames[0], options.brotliLevel},
        {kCodingNames[1], options.zstdLevel},
        {kCodingNames[2], options.gzipLevel},
    }};
    for (const auto& [coding, level] : levels) {
        if (level < coding.minLevel || level > coding.maxLevel) {
            error = "compress: the " + std::string(coding.name) + " level must be from " +
                    std::to_string(coding.minLevel) + " to " + std::to_string(coding.maxLevel);
            return false;
        }
        rule->levels[indexOf(coding.coding)] = level;
    }
    rule->minBytes = options.minBytes;
    Router::HandlerId existing;
    if (router_.find(Router::kAnyMethod, pattern, existing)) {
        error = "compress: \"" + std::string(pattern) + "\" has a rule already";
        return false;
    }
    if (!router_.add(Router::kAnyMethod, pattern, static_cast<Router::HandlerId>(rules_.size()))) {
        error = "compress: \"" + std::string(pattern) + "\" is not a route pattern";
        return false;
    }
    rules_.push_back(std::move(rule));
    return true;
}

void ResponseCompressor::negotiate(HttpRequest& request, std::string_view path, ResponseCoding& coding) noexcept {
    std::uint32_t matched = ResponseCoding::kNoRule;
    router_.dispatch(request.getCaseSensitiveMethod(), path, [&](const RouteMatch& match) {
        matched = match.handlerId();
        return true;
    });
    if (matched == ResponseCoding::kNoRule) return;
    const Rule& rule = *rules_[matched];
    AcceptEncoding accepted;
    for (std::size_t i = 0, n = request.headerCount(); i < n; ++i) {
        const HttpRequest::Header header = request.headerAt(i);
        if (header.name == "accept-encoding") accepted.read(header.value);
    }
    const CodingChoice choice = accepted.choose(rule.offered, {rule.preference.data(), rule.preferenceCount});
    coding.rule = static_cast<std::uint8_t>(matched);
    coding.coding = static_cast<std::uint8_t>(choice.coding);
}

bool ResponseCompressor::isCompressibleType(std::string_view contentType) const noexcept {
    return files::MimeTypes::isCompressible(contentType);
}

std::string_view ResponseCompressor::token(const ResponseCoding& coding) const noexcept {
    return contentCodingToken(static_cast<ContentCoding>(coding.coding));
}

std::uint64_t ResponseCompressor::minBytes(const ResponseCoding& coding) const noexcept {
    return rules_[coding.rule]->minBytes;
}

std::optional<std::string_view> ResponseCompressor::encodeWhole(const ResponseCoding& coding, std::string_view body) {
    CodingStream* stream = beginStream(coding);
    if (stream == nullptr) return std::nullopt;
    std::optional<std::string_view> coded = encodeStream(*stream, body, StreamFlush::Finish);
    endStream(*stream);
    return coded;
}

CodingStream* ResponseCompressor::beginStream(const ResponseCoding& coding) {
    Rule& rule = *rules_[coding.rule];
    const auto codingOf = static_cast<ContentCoding>(coding.coding);
    auto& idle = rule.idle[indexOf(codingOf)];
    if (!idle.empty()) {
        CodingStream* stream = idle.back().release();
        idle.pop_back();
        return stream;
    }
    std::unique_ptr<Encoder> encoder = Encoder::create(codingOf, rule.levels[indexOf(codingOf)]);
    if (!encoder) return nullptr;
    auto* stream = new CodingStream(std::move(encoder));
    stream->rule = coding.rule;
    return stream;
}

std::optional<std::string_view> ResponseCompressor::encodeStream(CodingStream& stream, std::string_view input,
                                                                 StreamFlush flush) {
    output_.consume(output_.size());
    const Encoder::Flush how = flush == StreamFlush::Finish ? Encoder::Flush::Finish
                               : flush == StreamFlush::Sync ? Encoder::Flush::Sync
                                                            : Encoder::Flush::None;
    if (!stream.encoder().encode(input, output_, how)) return std::nullopt;
    return output_.view();
}

void ResponseCompressor::endStream(CodingStream& stream) noexcept {
    std::unique_ptr<CodingStream> owned(&stream);
    // A compressor that cannot start again (or that failed) is dropped; the next response makes a new one.
    if (!owned->encoder().reset()) return;
    auto& idle = rules_[owned->rule]->idle[indexOf(owned->encoder().coding())];
    idle.push_back(std::move(owned));
}

std::size_t ResponseCompressor::idleStreams() const noexcept {
    std::size_t count = 0;
    for (const auto& rule : rules_) {
        for (const auto& idle : rule->idle)
            count += idle.size();
    }
    return count;
}

}  // namespace loopwire::compress
