#include "ResponseParser.h"

#include "HttpSyntax.h"
#include "LoadLimits.h"

#include <cstring>

namespace loopwire::lwload {

namespace {

using http::equalsLower;
using http::forEachListElement;
using http::isTextChar;
using http::isWhitespace;
using http::splitField;

int hexValue(char c) noexcept {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
}

}  // namespace

const char* responseErrorName(ResponseError error) noexcept {
    switch (error) {
        case ResponseError::None:
            return "none";
        case ResponseError::BadLineEnding:
            return "bad line ending";
        case ResponseError::LineTooLong:
            return "line too long";
        case ResponseError::HeadTooLarge:
            return "head too large";
        case ResponseError::TooManyHeaders:
            return "too many header fields";
        case ResponseError::BadStatusLine:
            return "bad status line";
        case ResponseError::BadHeader:
            return "bad header field";
        case ResponseError::BadContentLength:
            return "bad Content-Length";
        case ResponseError::BadTransferEncoding:
            return "bad Transfer-Encoding";
        case ResponseError::ConflictingFraming:
            return "both Content-Length and Transfer-Encoding";
        case ResponseError::BadChunkSize:
            return "bad chunk size line";
        case ResponseError::BadChunkEnd:
            return "chunk data not followed by CRLF";
        case ResponseError::UnexpectedUpgrade:
            return "unexpected 101 Switching Protocols";
        case ResponseError::TooManyInterim:
            return "too many 1xx responses";
        case ResponseError::Truncated:
            return "connection closed inside a response";
    }
    return "unknown";
}

void ResponseParser::resetHead() noexcept {
    http10_ = false;
    closeToken_ = false;
    keepAliveToken_ = false;
    hasContentLength_ = false;
    hasTransferEncoding_ = false;
    chunked_ = false;
    statusCode_ = 0;
    headerCount_ = 0;
    headBytes_ = 0;
    contentLength_ = 0;
}

void ResponseParser::reset() noexcept {
    resetHead();
    state_ = State::StatusLine;
    started_ = false;
    keepAlive_ = true;
    lineBuffered_ = false;
    interimCount_ = 0;
    bodyRemaining_ = 0;
    bodyBytes_ = 0;
    error_ = ResponseError::None;
    lineBuffer_.clear();
}

ResponseResult ResponseParser::feed(std::string_view input) {
    if (state_ == State::Failed) return {ResponseStatus::Error, error_, 0};
    if (state_ == State::Done) return {ResponseStatus::Complete, ResponseError::None, 0};
    if (!input.empty()) started_ = true;

    std::size_t pos = 0;
    while (pos < input.size()) {
        switch (state_) {
            case State::Body:
            case State::ChunkData: {
                const std::size_t available = input.size() - pos;
                const std::size_t take =
                    bodyRemaining_ < available ? static_cast<std::size_t>(bodyRemaining_) : available;
                pos += take;
                bodyRemaining_ -= take;
                bodyBytes_ += take;
                if (bodyRemaining_ == 0) {
                    if (state_ == State::Body) {
                        state_ = State::Done;
                        return {ResponseStatus::Complete, ResponseError::None, pos};
                    }
                    state_ = State::ChunkDataEnd;
                    crSeen_ = false;
                }
                break;
            }
            case State::ChunkDataEnd: {
                // Byte by byte, so that chunk data longer than its size is caught at the first extra byte.
                const char c = input[pos++];
                if (!crSeen_) {
                    if (c != '\r') {
                        error_ = ResponseError::BadChunkEnd;
                        state_ = State::Failed;
                        return {ResponseStatus::Error, error_, pos};
                    }
                    crSeen_ = true;
                } else {
                    if (c != '\n') {
                        error_ = ResponseError::BadChunkEnd;
                        state_ = State::Failed;
                        return {ResponseStatus::Error, error_, pos};
                    }
                    state_ = State::ChunkSizeLine;
                }
                break;
            }
            case State::BodyUntilClose:
                bodyBytes_ += input.size() - pos;
                pos = input.size();
                break;
            case State::Done:
            case State::Failed:
                return {ResponseStatus::Error, error_, pos};  // unreachable: handled below after each line
            default: {
                std::string_view line;
                ResponseError error = ResponseError::None;
                if (!takeLine(input, pos, line, error)) {
                    if (error == ResponseError::None) break;  // the rest of input is the start of a line
                    error_ = error;
                    state_ = State::Failed;
                    return {ResponseStatus::Error, error_, pos};
                }
                error = onLine(line);
                if (lineBuffered_) {
                    lineBuffer_.clear();
                    lineBuffered_ = false;
                }
                if (error != ResponseError::None) {
                    error_ = error;
                    state_ = State::Failed;
                    return {ResponseStatus::Error, error_, pos};
                }
                if (state_ == State::Done) return {ResponseStatus::Complete, ResponseError::None, pos};
                break;
            }
        }
    }
    return {ResponseStatus::NeedMore, ResponseError::None, pos};
}

bool ResponseParser::takeLine(std::string_view input, std::size_t& pos, std::string_view& line, ResponseError& error) {
    const char* start = input.data() + pos;
    const std::size_t available = input.size() - pos;
    const std::size_t buffered = lineBuffered_ ? lineBuffer_.size() : 0;
    // A line may hold kMaxLineBytes plus its CR; never scan further than that for its LF.
    const std::size_t budget = limits::kMaxLineBytes + 1 - buffered;
    const std::size_t scan = available < budget + 1 ? available : budget + 1;
    const auto* lf = static_cast<const char*>(std::memchr(start, '\n', scan));
    if (lf == nullptr) {
        if (available > budget) {
            error = ResponseError::LineTooLong;
            pos = input.size();
            return false;
        }
        lineBuffer_.append(start, available);
        lineBuffered_ = true;
        pos = input.size();
        return false;
    }
    const auto length = static_cast<std::size_t>(lf - start);
    pos += length + 1;
    if (lineBuffered_) {
        lineBuffer_.append(start, length);
        line = lineBuffer_;
    } else {
        line = std::string_view(start, length);
    }
    if (line.empty() || line.back() != '\r') {
        error = ResponseError::BadLineEnding;
        return false;
    }
    line.remove_suffix(1);
    if (line.size() > limits::kMaxLineBytes) {
        error = ResponseError::LineTooLong;
        return false;
    }
    return true;
}

ResponseError ResponseParser::onLine(std::string_view line) noexcept {
    switch (state_) {
        case State::StatusLine:
        case State::HeaderLine:
        case State::TrailerLine:
            headBytes_ += line.size() + 2;
            if (headBytes_ > limits::kMaxHeadBytes) return ResponseError::HeadTooLarge;
            if (state_ == State::StatusLine) return onStatusLine(line);
            if (state_ == State::HeaderLine) return onHeaderLine(line);
            return onTrailerLine(line);
        case State::ChunkSizeLine:
            return onChunkSizeLine(line);
        default:
            return ResponseError::None;
    }
}

ResponseError ResponseParser::onStatusLine(std::string_view line) noexcept {
    // HTTP-version SP 3DIGIT [SP reason-phrase]; "HTTP/1.1 200" without the second SP is tolerated.
    if (line.size() < 12 || line.compare(0, 7, "HTTP/1.") != 0 || line[8] != ' ') {
        return ResponseError::BadStatusLine;
    }
    if (line[7] == '1') {
        http10_ = false;
    } else if (line[7] == '0') {
        http10_ = true;
    } else {
        return ResponseError::BadStatusLine;
    }
    int code = 0;
    for (std::size_t i = 9; i < 12; ++i) {
        if (line[i] < '0' || line[i] > '9') return ResponseError::BadStatusLine;
        code = code * 10 + (line[i] - '0');
    }
    if (code < 100 || code > 599) return ResponseError::BadStatusLine;
    if (line.size() > 12) {
        if (line[12] != ' ') return ResponseError::BadStatusLine;
        for (std::size_t i = 13; i < line.size(); ++i) {
            if (!isTextChar(static_cast<unsigned char>(line[i]))) return ResponseError::BadStatusLine;
        }
    }
    statusCode_ = code;
    state_ = State::HeaderLine;
    return ResponseError::None;
}

ResponseError ResponseParser::onHeaderLine(std::string_view line) noexcept {
    if (line.empty()) return onEndOfHead();
    if (++headerCount_ > limits::kMaxHeaderCount) return ResponseError::TooManyHeaders;
    std::string_view name;
    std::string_view value;
    if (!splitField(line, name, value)) return ResponseError::BadHeader;

    if (name.size() == 14 && equalsLower(name, "content-length")) {
        if (value.empty() || value.size() > 18) return ResponseError::BadContentLength;
        std::uint64_t length = 0;
        for (char c : value) {
            if (c < '0' || c > '9') return ResponseError::BadContentLength;
            length = length * 10 + static_cast<std::uint64_t>(c - '0');
        }
        if (hasContentLength_ && length != contentLength_) return ResponseError::BadContentLength;
        hasContentLength_ = true;
        contentLength_ = length;
    } else if (name.size() == 17 && equalsLower(name, "transfer-encoding")) {
        hasTransferEncoding_ = true;
        const bool ok = forEachListElement(value, [this](std::string_view coding) {
            if (chunked_) return false;  // chunked must be the last coding, applied once
            if (equalsLower(coding, "chunked")) chunked_ = true;
            return true;
        });
        if (!ok) return ResponseError::BadTransferEncoding;
    } else if (name.size() == 10 && equalsLower(name, "connection")) {
        forEachListElement(value, [this](std::string_view option) {
            if (equalsLower(option, "close")) closeToken_ = true;
            if (equalsLower(option, "keep-alive")) keepAliveToken_ = true;
            return true;
        });
    }
    return ResponseError::None;
}

ResponseError ResponseParser::onEndOfHead() noexcept {
    if (statusCode_ < 200) {
        // Interim responses have no body; their fields say nothing about the final response.
        if (statusCode_ == 101) return ResponseError::UnexpectedUpgrade;
        if (++interimCount_ > limits::kMaxInterimResponses) return ResponseError::TooManyInterim;
        resetHead();
        state_ = State::StatusLine;
        return ResponseError::None;
    }
    if (hasContentLength_ && hasTransferEncoding_) return ResponseError::ConflictingFraming;
    keepAlive_ = http10_ ? (keepAliveToken_ && !closeToken_) : !closeToken_;
    headBytes_ = 0;
    headerCount_ = 0;
    if (headRequest_ || statusCode_ == 204 || statusCode_ == 304) {
        state_ = State::Done;
    } else if (hasTransferEncoding_) {
        if (chunked_) {
            state_ = State::ChunkSizeLine;
        } else {
            state_ = State::BodyUntilClose;
            keepAlive_ = false;
        }
    } else if (hasContentLength_) {
        bodyRemaining_ = contentLength_;
        state_ = contentLength_ == 0 ? State::Done : State::Body;
    } else {
        state_ = State::BodyUntilClose;
        keepAlive_ = false;
    }
    return ResponseError::None;
}

ResponseError ResponseParser::onChunkSizeLine(std::string_view line) noexcept {
    std::uint64_t size = 0;
    std::size_t i = 0;
    for (; i < line.size(); ++i) {
        const int digit = hexValue(line[i]);
        if (digit < 0) break;
        if (i == limits::kMaxChunkSizeDigits) return ResponseError::BadChunkSize;
        size = (size << 4) | static_cast<std::uint64_t>(digit);
    }
    if (i == 0 || size > (UINT64_MAX >> 1)) return ResponseError::BadChunkSize;
    while (i < line.size() && isWhitespace(line[i]))
        ++i;
    if (i < line.size()) {
        // chunk-ext = *( BWS ";" BWS ext-name [ BWS "=" BWS ext-val ] ): checked loosely, bounded by the line.
        if (line[i] != ';') return ResponseError::BadChunkSize;
        for (; i < line.size(); ++i) {
            if (!isTextChar(static_cast<unsigned char>(line[i]))) return ResponseError::BadChunkSize;
        }
    }
    if (size == 0) {
        state_ = State::TrailerLine;
    } else {
        bodyRemaining_ = size;
        state_ = State::ChunkData;
    }
    return ResponseError::None;
}

ResponseError ResponseParser::onTrailerLine(std::string_view line) noexcept {
    if (line.empty()) {
        state_ = State::Done;
        return ResponseError::None;
    }
    if (++headerCount_ > limits::kMaxHeaderCount) return ResponseError::TooManyHeaders;
    std::string_view name;
    std::string_view value;
    return splitField(line, name, value) ? ResponseError::None : ResponseError::BadHeader;
}

ResponseResult ResponseParser::finish() noexcept {
    switch (state_) {
        case State::BodyUntilClose:
            state_ = State::Done;
            return {ResponseStatus::Complete, ResponseError::None, 0};
        case State::Done:
            return {ResponseStatus::Complete, ResponseError::None, 0};
        case State::Failed:
            return {ResponseStatus::Error, error_, 0};
        case State::StatusLine:
            if (!started_) return {ResponseStatus::NeedMore, ResponseError::None, 0};
            [[fallthrough]];
        default:
            error_ = ResponseError::Truncated;
            state_ = State::Failed;
            return {ResponseStatus::Error, error_, 0};
    }
}

}  // namespace loopwire::lwload
