// Fuzz target for HttpParser, with ChunkedDecoder for chunked bodies: a connection's reading side without the
// socket, run over the input twice.
//
// Input: byte 0 chooses how the stream is cut into reads (0: one byte per read; otherwise reads of 1 to 64
// bytes drawn from a generator it seeds), the rest is the byte stream a client sends. The stream is read once
// whole and once in those reads; both must produce the same log of requests, bodies and final verdict, because
// the parser's verdict may not depend on how bytes arrive. Read whole once more with the portable scan instead
// of the 16-byte vector scan, it must give the same log again. Every call gets an exactly sized heap copy of its
// input so that the sanitizer sees any read past it, and every result is checked against the contract:
// consumed within the input, views within the head, names lower-case tokens, values without OWS at either end.
#include "http/ChunkedDecoder.h"

#include "FuzzSupport.h"
#include "http/HttpParser.h"

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace {

using namespace loopwire;

bool isTokenChar(char c) {
    const auto u = static_cast<unsigned char>(c);
    if ((u >= '0' && u <= '9') || (u >= 'a' && u <= 'z') || (u >= 'A' && u <= 'Z')) return true;
    return std::strchr("!#$%&'*+-.^_`|~", c) != nullptr && c != '\0';
}

bool inside(std::string_view view, const char* begin, std::size_t length) {
    if (view.empty()) return true;
    return view.data() >= begin && view.data() + view.size() <= begin + length;
}

void checkHead(const RequestHead& head, const char* data, std::size_t consumed) {
    FUZZ_CHECK(consumed > 0 && consumed <= limits::kMaxHeaderSectionBytes);
    FUZZ_CHECK(!head.method.empty() && head.method.size() <= limits::kMaxMethodBytes);
    FUZZ_CHECK(inside(head.method, data, consumed));
    for (const char c : head.method)
        FUZZ_CHECK(isTokenChar(c));
    FUZZ_CHECK(!head.target.empty() && head.target.size() <= limits::kMaxRequestTargetBytes);
    FUZZ_CHECK(inside(head.target, data, consumed) && inside(head.path, data, consumed) &&
               inside(head.query, data, consumed));
    for (const char c : head.target) {
        const auto u = static_cast<unsigned char>(c);
        FUZZ_CHECK(u > 0x20 && u < 0x7F);
    }
    if (head.target.find('?') == std::string_view::npos) {
        FUZZ_CHECK(head.path == head.target && head.query.empty());
    } else {
        FUZZ_CHECK(head.path.size() + 1 + head.query.size() == head.target.size());
        FUZZ_CHECK(head.target.substr(0, head.path.size()) == head.path && head.target[head.path.size()] == '?');
        FUZZ_CHECK(head.path.find('?') == std::string_view::npos);
    }
    FUZZ_CHECK(head.httpMinor <= 1);
    FUZZ_CHECK(head.headerCount <= limits::kMaxHeaderCount);
    int hosts = 0;
    bool transferEncoding = false;
    for (std::uint16_t i = 0; i < head.headerCount; ++i) {
        const HttpHeader& h = head.headers[i];
        FUZZ_CHECK(!h.name.empty() && inside(h.name, data, consumed) && inside(h.value, data, consumed));
        for (const char c : h.name)
            FUZZ_CHECK(isTokenChar(c) && !(c >= 'A' && c <= 'Z'));
        if (!h.value.empty()) {
            FUZZ_CHECK(h.value.front() != ' ' && h.value.front() != '\t');
            FUZZ_CHECK(h.value.back() != ' ' && h.value.back() != '\t');
        }
        for (const char c : h.value)
            FUZZ_CHECK(c != '\r' && c != '\n' && c != '\0');
        if (h.name == "host") ++hosts;
        if (h.name == "transfer-encoding") transferEncoding = true;
    }
    FUZZ_CHECK(hosts <= 1);
    if (head.httpMinor == 1) FUZZ_CHECK(hosts == 1);
    if (head.framing == BodyFraming::ContentLength) FUZZ_CHECK(head.contentLength > 0);
    if (head.framing != BodyFraming::ContentLength) FUZZ_CHECK(head.contentLength == 0);
    FUZZ_CHECK((head.framing == BodyFraming::Chunked) == transferEncoding);
}

// The reading side of one connection: heads, bodies, pipelining; it appends what it finds to a log.
class Connection {
public:
    void feed(std::string_view bytes) {
        held_.append(bytes);
        process();
    }
    // Body bytes are logged per message, not per read, since reads differ between the two runs.
    std::string log() const { return log_ + "B" + body_ + "\n"; }

private:
    enum class Stage { Head, FixedBody, ChunkedBody, Done };

    void process() {
        while (stage_ != Stage::Done) {
            if (stage_ == Stage::Head) {
                if (!readHead()) return;
            } else if (stage_ == Stage::FixedBody) {
                const std::size_t available = held_.size() - start_;
                const std::size_t n = remaining_ < available ? static_cast<std::size_t>(remaining_) : available;
                body_.append(held_, start_, n);
                start_ += n;
                remaining_ -= n;
                if (remaining_ != 0) return;
                finishMessage();
            } else {
                if (!readChunked()) return;
            }
        }
    }

    bool readHead() {
        const std::size_t length = held_.size() - start_;
        std::unique_ptr<char[]> exact(new char[length == 0 ? 1 : length]);
        if (length != 0) std::memcpy(exact.get(), held_.data() + start_, length);
        const ParseResult r = parser_.parse(exact.get(), length, *head_);
        if (length != 0) std::memcpy(held_.data() + start_, exact.get(), length);  // keep the lowercased names
        if (r.status == ParseStatus::NeedMore) return false;
        if (r.status == ParseStatus::Error) {
            FUZZ_CHECK(r.error != HttpError::None);
            FUZZ_CHECK(statusFor(r.error) >= 400);
            log_.append("E").append(nameOf(r.error)).append("\n");
            stage_ = Stage::Done;
            return false;
        }
        FUZZ_CHECK(r.consumed <= length);
        checkHead(*head_, exact.get(), r.consumed);
        const RequestHead& h = *head_;
        log_.append("H").append(h.method).append(" ").append(h.target).append(" ");
        log_ += std::to_string(h.httpMinor) + std::to_string(static_cast<int>(h.framing)) + " " +
                std::to_string(h.contentLength) + " " + std::to_string(h.keepAlive) + std::to_string(h.expectContinue) +
                std::to_string(h.upgrade) + " " + std::to_string(r.consumed);
        for (std::uint16_t i = 0; i < h.headerCount; ++i) {
            log_.append("|").append(h.headers[i].name).append(":").append(h.headers[i].value);
        }
        log_ += "\n";
        start_ += r.consumed;
        keepAlive_ = h.keepAlive;
        if (h.upgrade) {
            log_ += "U\n";
            stage_ = Stage::Done;
        } else if (h.framing == BodyFraming::ContentLength) {
            remaining_ = h.contentLength;
            stage_ = Stage::FixedBody;
        } else if (h.framing == BodyFraming::Chunked) {
            decoder_.reset();
            stage_ = Stage::ChunkedBody;
        } else {
            finishMessage();
        }
        return true;
    }

    bool readChunked() {
        const std::size_t length = held_.size() - start_;
        if (length == 0) return false;
        std::unique_ptr<char[]> exact(new char[length]);
        std::memcpy(exact.get(), held_.data() + start_, length);
        const ChunkedResult r = decoder_.decode(std::string_view(exact.get(), length));
        FUZZ_CHECK(r.consumed <= length);
        FUZZ_CHECK(inside(r.data, exact.get(), r.consumed));
        body_.append(r.data);
        start_ += r.consumed;
        if (r.status == ParseStatus::Error) {
            log_.append("E").append(nameOf(r.error)).append("\n");
            stage_ = Stage::Done;
            return false;
        }
        if (r.status == ParseStatus::Complete) {
            finishMessage();
            return true;
        }
        FUZZ_CHECK(r.consumed > 0);  // NeedMore on a non-empty input always makes progress
        return start_ < held_.size();
    }

    void finishMessage() {
        log_.append("B").append(body_).append("\nM\n");
        body_.clear();
        if (!keepAlive_) {
            log_ += "C\n";
            stage_ = Stage::Done;
        } else {
            stage_ = Stage::Head;
        }
    }

    std::string held_;  // everything received, as the parser left it
    std::size_t start_ = 0;
    Stage stage_ = Stage::Head;
    HttpParser parser_;
    std::unique_ptr<RequestHead> head_ = std::make_unique<RequestHead>();
    ChunkedDecoder decoder_;
    std::uint64_t remaining_ = 0;
    bool keepAlive_ = true;
    std::string log_;
    std::string body_;  // the body of the current message so far
};

std::vector<std::size_t> readSizes(std::uint8_t seed, std::size_t total) {
    std::vector<std::size_t> sizes;
    std::uint32_t state =
        0x9E3779B9u ^ (static_cast<std::uint32_t>(seed) * 0x85EBCA6Bu) ^ static_cast<std::uint32_t>(total);
    std::size_t fed = 0;
    while (fed < total) {
        std::size_t n = 1;
        if (seed != 0) {
            state ^= state << 13;
            state ^= state >> 17;
            state ^= state << 5;
            n = 1 + state % 64;
        }
        if (n > total - fed) n = total - fed;
        sizes.push_back(n);
        fed += n;
    }
    return sizes;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    if (size < 1) return 0;
    const std::string_view stream(reinterpret_cast<const char*>(data + 1), size - 1);

    Connection whole;
    whole.feed(stream);

    Connection pieces;
    std::size_t fed = 0;
    for (const std::size_t n : readSizes(data[0], stream.size())) {
        pieces.feed(stream.substr(fed, n));
        fed += n;
    }
    if (whole.log() != pieces.log()) {
        std::fprintf(stderr, "whole:\n%s\nin pieces:\n%s\n", whole.log().c_str(), pieces.log().c_str());
        FUZZ_CHECK(whole.log() == pieces.log());
    }
    // The portable scan over the whole stream must agree with the vector scan (where the build has one).
    if (HttpParser::vectorScanning()) {
        HttpParser::setVectorScanningForTesting(false);
        Connection portable;
        portable.feed(stream);
        HttpParser::setVectorScanningForTesting(true);
        if (portable.log() != whole.log()) {
            std::fprintf(stderr, "vector:\n%s\nportable:\n%s\n", whole.log().c_str(), portable.log().c_str());
            FUZZ_CHECK(portable.log() == whole.log());
        }
    }
    return 0;
}
