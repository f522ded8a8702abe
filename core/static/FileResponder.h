// FileResponder: the answer to a GET or HEAD of one file, by RFC 9110: the representation (the plain file, or a
// precompressed variant the client accepts: Content-Encoding, Vary), the preconditions (304, 412), the Range field
// (206, multipart/byteranges, 416), and the body from memory or the file. Shared by static mounts
// (App::serveStatic) and HttpResponse::sendFile.
//
// RequestFields are read from the request while its handler runs (views into it): respond() must be called
// before the handler returns, or with fields whose views are still valid. Allocates nothing: a body that does not
// go out in one end() call streams through a pooled BodyStream. Loop thread only.
#pragma once

#include "BodyStream.h"
#include "CachedFile.h"
#include "FileRoot.h"
#include "compress/AcceptEncoding.h"

#include <loopwire/StaticFileOptions.h>

#include <cstdint>
#include <memory>
#include <span>
#include <string_view>

namespace loopwire {
class HttpRequest;
class HttpResponse;
}  // namespace loopwire

namespace loopwire::files {

// The request fields a file response depends on; an absent field is an empty view.
struct RequestFields {
    bool head = false;
    std::string_view ifMatch;
    std::string_view ifNoneMatch;
    std::string_view ifModifiedSince;
    std::string_view ifUnmodifiedSince;
    std::string_view ifRange;
    std::string_view range;
    compress::AcceptEncoding acceptEncoding;  // every Accept-Encoding line, read

    // Reads them in one pass over the request's fields.
    static RequestFields of(HttpRequest& request) noexcept;
    // Reads them from copies (SendFileOptions::requestHeaders: names in any case), for the answer to a request that
    // is gone; head: whether it was a HEAD.
    static RequestFields of(std::span<const HeaderField> fields, bool head) noexcept;
    // Whether answering reads the wall clock: a date to place (RFC 850's two-digit years), or a Range whose If-Range
    // date is only strong when Last-Modified is older than now. Most requests carry none of these.
    bool needClock() const noexcept { return !ifModifiedSince.empty() || !ifUnmodifiedSince.empty() || !range.empty(); }

private:
    // Takes value when name (lowercase) is one of the fields above; the first of a repeated field counts, as
    // HttpRequest::getHeader reads it, except Accept-Encoding, whose every line counts.
    void take(std::string_view name, std::string_view value) noexcept;
};

// What every response of a mount carries besides the file's own fields.
struct ResponsePolicy {
    std::string_view cacheControl;  // empty: no Cache-Control field
    bool entityTag = true;
    bool lastModified = true;
    bool sendfile = true;  // a file's bytes may go by sendfile(2) (StaticFileOptions::sendfile)
    // Fields a 200, 206 or 304 carries besides the file's own (SendFileOptions::headers), after its status.
    std::span<const HeaderField> extraHeaders;
};

class FileResponder {
public:
    // A body up to this long, in memory, goes out in one end() call (copied into the connection's output); a longer
    // one streams, so that a slow reader of a large cached file holds a reference, not a copy.
    static constexpr std::size_t kMaxBodyInOneWriteBytes = 64 * 1024;

    FileResponder(BodyStreamPool& streams, std::string_view boundary) noexcept
        : streams_(streams), boundary_(boundary) {}

    // Answers with entry (a File), found beneath root. fd: an open descriptor of the file that identity describes,
    // taken (closed here, or by the stream), when the body is not in memory; -1 when it is, or when none is needed
    // (HEAD). A precompressed variant too large for the cache is opened here, beneath root, and served when it is
    // still the file the entry saw (else the plain file is). nowSeconds: the wall clock, for the strength of
    // Last-Modified as an If-Range validator; read only when fields.needClock() (any value otherwise).
    void respond(HttpResponse& response, const RequestFields& fields, const std::shared_ptr<CachedFile>& entry, int fd,
                 const ResponsePolicy& policy, std::int64_t nowSeconds, const FileRoot& root) const;

private:
    // ETag, Last-Modified, Cache-Control, and Vary when the file has coded variants (on every status, 304 included,
    // so that caches keep them apart).
    void writeValidators(HttpResponse& response, const Representation& representation, const ResponsePolicy& policy,
                         bool varies) const;
    void sendBody(HttpResponse& response, const RequestFields& fields, const std::shared_ptr<CachedFile>& entry,
                  const Representation& representation, const ResponsePolicy& policy, int fd,
                  std::span<const ByteRange> ranges) const;

    BodyStreamPool& streams_;
    std::string_view boundary_;
};

}  // namespace loopwire::files
