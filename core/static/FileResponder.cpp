#include "FileResponder.h"

#include "static/ContentRange.h"
#include "static/Preconditions.h"

#include <loopwire/HttpRequest.h>
#include <loopwire/HttpResponse.h>

#include <algorithm>
#include <sys/stat.h>
#include <unistd.h>

namespace loopwire::files {

namespace {

void closeIfOpen(int fd) noexcept {
    if (fd >= 0) ::close(fd);
}

// The sibling of file that holds coding's variant, opened beneath root when it is still the file identity describes;
// -1 otherwise (it changed or went since the entry was checked: the plain file answers).
int openVariant(const FileRoot& root, const CachedFile& file, compress::ContentCoding coding,
                const FileIdentity& identity) noexcept {
    std::string_view suffix;
    for (std::size_t i = 0; i < CachedFile::kPrecompressedCodings; ++i) {
        if (CachedFile::kPrecompressedOrder[i] == coding) suffix = CachedFile::kPrecompressedSuffixes[i];
    }
    struct stat status;
    const int fd = suffix.empty() ? -1 : root.openRegular(file.key, suffix, status);
    if (fd < 0) return -1;
    if (FileIdentity::of(status) != identity) {
        ::close(fd);
        return -1;
    }
    return fd;
}

}  // namespace

RequestFields RequestFields::of(HttpRequest& request) noexcept {
    RequestFields fields;
    fields.head = request.getCaseSensitiveMethod() == "HEAD";
    for (std::size_t i = 0, n = request.headerCount(); i < n; ++i) {
        const HttpRequest::Header header = request.headerAt(i);
        fields.take(header.name, header.value);
    }
    return fields;
}

RequestFields RequestFields::of(std::span<const HeaderField> copies, bool head) noexcept {
    RequestFields fields;
    fields.head = head;
    for (const auto& [name, value] : copies) {
        char lowercase[32];
        if (name.size() > sizeof lowercase) continue;  // longer than any name taken
        for (std::size_t i = 0; i < name.size(); ++i) {
            const char c = name[i];
            lowercase[i] = c >= 'A' && c <= 'Z' ? static_cast<char>(c | 0x20) : c;
        }
        fields.take(std::string_view(lowercase, name.size()), value);
    }
    return fields;
}

void RequestFields::take(std::string_view name, std::string_view value) noexcept {
    // Matching on the first letter and the length before comparing: most requests carry none of these.
    if (name.size() < 5 || (name[0] != 'i' && name[0] != 'r' && name[0] != 'a')) return;
    std::string_view* slot = nullptr;
    if (name == "range") {
        slot = &range;
    } else if (name == "if-match") {
        slot = &ifMatch;
    } else if (name == "if-none-match") {
        slot = &ifNoneMatch;
    } else if (name == "if-modified-since") {
        slot = &ifModifiedSince;
    } else if (name == "if-unmodified-since") {
        slot = &ifUnmodifiedSince;
    } else if (name == "if-range") {
        slot = &ifRange;
    } else if (name == "accept-encoding") {
        // Every line counts: a client may split the list over several.
        acceptEncoding.read(value);
    }
    if (slot != nullptr && slot->data() == nullptr) *slot = value;
}

namespace {

void writeExtraHeaders(HttpResponse& response, const ResponsePolicy& policy) {
    for (const auto& [name, value] : policy.extraHeaders)
        response.writeHeader(name, value);
}

}  // namespace

void FileResponder::writeValidators(HttpResponse& response, const Representation& representation,
                                    const ResponsePolicy& policy, bool varies) const {
    if (policy.entityTag) response.writeHeader("ETag", representation.entityTag);
    if (policy.lastModified) response.writeHeader("Last-Modified", representation.lastModified);
    if (!policy.cacheControl.empty()) response.writeHeader("Cache-Control", policy.cacheControl);
    if (varies) response.writeHeader("Vary", "Accept-Encoding");
}

void FileResponder::respond(HttpResponse& response, const RequestFields& fields,
                            const std::shared_ptr<CachedFile>& entry, int fd, const ResponsePolicy& policy,
                            std::int64_t nowSeconds, const FileRoot& root) const {
    const CachedFile& file = *entry;
    // A precompressed variant answers a request that accepts its coding; never a Range request (the ranges a
    // client asks for are of the plain file: it may have cached part of it, or be resuming a download of it).
    const compress::CodingSet variants = file.precompressedCodings();
    const bool varies = file.variesByCoding;
    compress::ContentCoding coding = compress::ContentCoding::Identity;
    if (varies && fields.range.empty()) {
        coding = fields.acceptEncoding.choose(variants, CachedFile::kPrecompressedOrder).coding;
    }
    Representation representation = file.representation(coding);
    if (coding != compress::ContentCoding::Identity) {
        // The variant's bytes are in memory, or in its own file: the plain file's descriptor is not needed.
        const int variantFd =
            representation.inMemory || fields.head ? -1 : openVariant(root, file, coding, *representation.identity);
        if (representation.inMemory || fields.head || variantFd >= 0) {
            closeIfOpen(fd);
            fd = variantFd;
        } else {
            coding = compress::ContentCoding::Identity;
            representation = file.representation();
        }
    }

    Validators current;
    current.entityTag = policy.entityTag ? representation.entityTag : std::string_view();
    current.lastModified = representation.lastModifiedSeconds;
    ConditionalFields conditions;
    conditions.ifMatch = fields.ifMatch;
    conditions.ifNoneMatch = fields.ifNoneMatch;
    // Without a Last-Modified field the client has no date of ours to send back: its date conditions are ignored.
    if (policy.lastModified) {
        conditions.ifModifiedSince = fields.ifModifiedSince;
        conditions.ifUnmodifiedSince = fields.ifUnmodifiedSince;
    }

    // Most requests carry no condition: no need to read the entity-tags then.
    const bool conditional = !conditions.ifMatch.empty() || !conditions.ifNoneMatch.empty() ||
                             !conditions.ifModifiedSince.empty() || !conditions.ifUnmodifiedSince.empty();
    const PreconditionVerdict precondition =
        conditional ? Preconditions::evaluate(conditions, current, nowSeconds) : PreconditionVerdict::Proceed;
    switch (precondition) {
        case PreconditionVerdict::NotModified:
            closeIfOpen(fd);
            response.writeStatus("304 Not Modified");
            writeExtraHeaders(response, policy);
            writeValidators(response, representation, policy, varies);
            response.endWithoutBody();
            return;
        case PreconditionVerdict::PreconditionFailed:
            closeIfOpen(fd);
            response.writeStatus("412 Precondition Failed");
            response.end();
            return;
        case PreconditionVerdict::Proceed:
            break;
    }

    const std::uint64_t length = representation.length;
    ByteRanges ranges;
    RangeVerdict verdict = RangeVerdict::Ignored;
    if (!fields.range.empty()) {
        // Last-Modified is a strong validator only when the file had not changed for a second when it was read
        // (RFC 9110 §8.8.2.2): a write within the same second would leave it unchanged.
        const bool lastModifiedIsStrong = policy.lastModified && current.lastModified < nowSeconds;
        if (Preconditions::rangeApplies(fields.ifRange, current, lastModifiedIsStrong, nowSeconds)) {
            verdict = ranges.read(fields.range, length);
        }
    }

    switch (verdict) {
        case RangeVerdict::Unsatisfiable:
            closeIfOpen(fd);
            response.writeStatus("416 Range Not Satisfiable");
            response.writeHeader("Content-Range", ContentRange(length).text());
            writeValidators(response, representation, policy, varies);
            response.end();
            return;
        case RangeVerdict::Satisfiable: {
            response.writeStatus("206 Partial Content");
            writeExtraHeaders(response, policy);
            writeValidators(response, representation, policy, varies);
            response.writeHeader("Accept-Ranges", "bytes");
            if (ranges.ranges().size() == 1) {
                response.writeHeader("Content-Type", representation.contentType);
                response.writeHeader("Content-Range", ContentRange(ranges.ranges()[0], length).text());
            } else {
                char type[64];
                const std::string_view prefix = "multipart/byteranges; boundary=";
                std::copy(prefix.begin(), prefix.end(), type);
                std::copy(boundary_.begin(), boundary_.end(), type + prefix.size());
                response.writeHeader("Content-Type", std::string_view(type, prefix.size() + boundary_.size()));
            }
            sendBody(response, fields, entry, representation, policy, fd, ranges.ranges());
            return;
        }
        case RangeVerdict::Ignored:
            break;
    }

    writeExtraHeaders(response, policy);
    writeValidators(response, representation, policy, varies);
    response.writeHeader("Accept-Ranges", "bytes");
    response.writeHeader("Content-Type", representation.contentType);
    if (coding != compress::ContentCoding::Identity) {
        response.writeHeader("Content-Encoding", compress::contentCodingToken(coding));
    }
    const ByteRange whole{0, length == 0 ? 0 : length - 1};
    if (length == 0) {
        closeIfOpen(fd);
        response.end();
        return;
    }
    sendBody(response, fields, entry, representation, policy, fd, {&whole, 1});
}

void FileResponder::sendBody(HttpResponse& response, const RequestFields& fields,
                             const std::shared_ptr<CachedFile>& entry, const Representation& representation,
                             const ResponsePolicy& policy, int fd, std::span<const ByteRange> ranges) const {
    if (fields.head) {
        closeIfOpen(fd);
        const std::uint64_t length =
            ranges.size() == 1
                ? ranges[0].length()
                : BodyStream::multipartLength(ranges, representation.contentType, representation.length, boundary_);
        response.endWithoutBody(length);
        return;
    }
    if (ranges.size() == 1 && representation.inMemory && ranges[0].length() <= kMaxBodyInOneWriteBytes) {
        closeIfOpen(fd);
        response.end(representation.body.substr(static_cast<std::size_t>(ranges[0].first),
                                                static_cast<std::size_t>(ranges[0].length())));
        return;
    }
    BodyStream& stream = streams_.acquire();
    stream.start(response, entry, representation, representation.inMemory ? -1 : fd, ranges, boundary_,
                 policy.sendfile);
    if (representation.inMemory) closeIfOpen(fd);
    stream.pump();
}

}  // namespace loopwire::files
