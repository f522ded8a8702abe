// ConformanceCases: the HTTP/1.1 request cases of shared/conformance/http1-requests.jsonl (converted from llhttp's
// request tests), loaded for replay through the parser here and, later, over a socket.
//
// loadConformanceCases() reads the JSON lines with a small extractor of flat objects (the file holds nothing
// else) and decodes raw_b64. withHostWhereMissing() applies the file's README: an HTTP/1.1 request without Host
// must be refused, and most cases carry none, so `Host: x` is inserted after the request line of every HTTP/1.1
// request head in the byte stream that lacks one. Both allocate freely: they are test helpers.
#pragma once

#include "http/ChunkedDecoder.h"
#include "http/HttpParser.h"

#include <charconv>
#include <cstddef>
#include <cstdint>
#include <fstream>
#include <map>
#include <memory>
#include <optional>
#include <ostream>
#include <string>
#include <string_view>
#include <system_error>
#include <utility>
#include <vector>

namespace loopwire::test {

struct ConformanceCase {
    int id = 0;
    std::string name;         // llhttp's heading
    std::string source;       // llhttp's file
    std::string expect;       // accept, reject, wait, upgrade or close-after (llhttp's strict verdict)
    int messages = 0;         // complete requests llhttp finds in raw
    std::string llhttpError;  // llhttp's error for reject cases; empty otherwise
    std::string raw;          // the exact bytes, decoded from raw_b64, before any Host insertion
};

// For GoogleTest's parameter printing: the id says it all.
inline void PrintTo(const ConformanceCase& c, std::ostream* os) { *os << "case " << c.id << ": " << c.name; }

namespace conformance_detail {

// Reads one flat JSON object: string, number, boolean and null values. Strings are unescaped (\uXXXX becomes
// UTF-8); other values are kept as their text. Returns nothing if the line is not such an object.
inline std::optional<std::map<std::string, std::string>> parseFlatObject(std::string_view line) {
    std::map<std::string, std::string> fields;
    std::size_t i = 0;
    const auto skipSpace = [&] {
        while (i < line.size() && (line[i] == ' ' || line[i] == '\t' || line[i] == '\r' || line[i] == '\n'))
            ++i;
    };
    const auto readString = [&](std::string& out) -> bool {
        if (i >= line.size() || line[i] != '"') return false;
        ++i;
        while (i < line.size() && line[i] != '"') {
            char c = line[i++];
            if (c != '\\') {
                out += c;
                continue;
            }
            if (i >= line.size()) return false;
            c = line[i++];
            switch (c) {
                case 'n':
                    out += '\n';
                    break;
                case 't':
                    out += '\t';
                    break;
                case 'r':
                    out += '\r';
                    break;
                case 'b':
                    out += '\b';
                    break;
                case 'f':
                    out += '\f';
                    break;
                case 'u': {
                    if (i + 4 > line.size()) return false;
                    const unsigned code =
                        static_cast<unsigned>(std::stoul(std::string(line.substr(i, 4)), nullptr, 16));
                    i += 4;
                    if (code < 0x80) {
                        out += static_cast<char>(code);
                    } else if (code < 0x800) {
                        out += static_cast<char>(0xC0 | (code >> 6));
                        out += static_cast<char>(0x80 | (code & 0x3F));
                    } else {
                        out += static_cast<char>(0xE0 | (code >> 12));
                        out += static_cast<char>(0x80 | ((code >> 6) & 0x3F));
                        out += static_cast<char>(0x80 | (code & 0x3F));
                    }
                    break;
                }
                default:
                    out += c;
                    break;  // \" \\ \/
            }
        }
        if (i >= line.size()) return false;
        ++i;
        return true;
    };

    skipSpace();
    if (i >= line.size() || line[i] != '{') return std::nullopt;
    ++i;
    for (;;) {
        skipSpace();
        if (i < line.size() && line[i] == '}') return fields;
        std::string key;
        if (!readString(key)) return std::nullopt;
        skipSpace();
        if (i >= line.size() || line[i] != ':') return std::nullopt;
        ++i;
        skipSpace();
        std::string value;
        if (i < line.size() && line[i] == '"') {
            if (!readString(value)) return std::nullopt;
        } else {
            while (i < line.size() && line[i] != ',' && line[i] != '}' && line[i] != ' ')
                value += line[i++];
            if (value.empty()) return std::nullopt;
        }
        fields[key] = value;
        skipSpace();
        if (i < line.size() && line[i] == ',') {
            ++i;
            continue;
        }
        if (i < line.size() && line[i] == '}') return fields;
        return std::nullopt;
    }
}

inline std::optional<std::string> decodeBase64(std::string_view text) {
    std::string out;
    std::uint32_t bits = 0;
    int count = 0;
    for (const char c : text) {
        int v;
        if (c >= 'A' && c <= 'Z') {
            v = c - 'A';
        } else if (c >= 'a' && c <= 'z') {
            v = c - 'a' + 26;
        } else if (c >= '0' && c <= '9') {
            v = c - '0' + 52;
        } else if (c == '+') {
            v = 62;
        } else if (c == '/') {
            v = 63;
        } else if (c == '=') {
            break;
        } else {
            return std::nullopt;
        }
        bits = (bits << 6) | static_cast<std::uint32_t>(v);
        count += 6;
        if (count >= 8) {
            count -= 8;
            out += static_cast<char>((bits >> count) & 0xFF);
        }
    }
    return out;
}

inline char lowerAscii(char c) { return c >= 'A' && c <= 'Z' ? static_cast<char>(c + 32) : c; }

// Whether the field lines that start at `from` (up to the first empty line) include a Host field.
inline bool headHasHost(std::string_view bytes, std::size_t from) {
    while (from < bytes.size()) {
        const std::size_t lf = bytes.find('\n', from);
        std::string_view line = bytes.substr(from, lf == std::string_view::npos ? std::string_view::npos : lf - from);
        if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
        if (line.empty()) return false;
        if (line.size() >= 5) {
            std::string start;
            for (std::size_t k = 0; k < 5; ++k)
                start += lowerAscii(line[k]);
            if (start == "host:") return true;
        }
        if (lf == std::string_view::npos) return false;
        from = lf + 1;
    }
    return false;
}

}  // namespace conformance_detail

// Returns the bytes with `Host: x\r\n` inserted after the request line of each HTTP/1.1 request head that lacks
// a Host field. Request heads are found the way the server finds them: the parser and the body framing
// (Content-Length, chunked) walk the stream; the walk stops at the first head that is refused, incomplete, an
// upgrade, or followed by a close, since the server reads no request after those.
inline std::string withHostWhereMissing(std::string_view raw) {
    std::string bytes(raw);
    std::size_t start = 0;
    auto head = std::make_unique<RequestHead>();
    while (start < bytes.size()) {
        std::size_t lineBegin = start;
        while (lineBegin < bytes.size() && (bytes[lineBegin] == '\r' || bytes[lineBegin] == '\n'))
            ++lineBegin;
        const std::size_t lf = bytes.find('\n', lineBegin);
        if (lf == std::string::npos) break;
        std::string_view requestLine(bytes.data() + lineBegin, lf - lineBegin);
        if (!requestLine.empty() && requestLine.back() == '\r') requestLine.remove_suffix(1);
        constexpr std::string_view kVersion = " HTTP/1.1";
        if (requestLine.size() >= kVersion.size() &&
            requestLine.substr(requestLine.size() - kVersion.size()) == kVersion &&
            !conformance_detail::headHasHost(bytes, lf + 1)) {
            bytes.insert(lf + 1, "Host: x\r\n");
        }

        // Find where the next request starts, on a copy (the parser lowercases names in place).
        std::string copy = bytes.substr(start);
        HttpParser parser;
        const ParseResult r = parser.parse(copy.data(), copy.size(), *head);
        if (r.status != ParseStatus::Complete || head->upgrade) break;
        std::size_t next = start + r.consumed;
        if (head->framing == BodyFraming::ContentLength) {
            if (head->contentLength > bytes.size() - next) break;
            next += static_cast<std::size_t>(head->contentLength);
        } else if (head->framing == BodyFraming::Chunked) {
            ChunkedDecoder decoder;
            std::string_view rest = std::string_view(bytes).substr(next);
            bool complete = false;
            for (;;) {
                const ChunkedResult c = decoder.decode(rest);
                next += c.consumed;
                rest.remove_prefix(c.consumed);
                if (c.status == ParseStatus::Complete) complete = true;
                if (c.status != ParseStatus::NeedMore || rest.empty()) break;
            }
            if (!complete) break;
        }
        if (!head->keepAlive) break;
        start = next;
    }
    return bytes;
}

// Loads every case of the file, in file order. Returns an empty vector when the file cannot be read; a line
// that cannot be parsed becomes a case with id 0, so a test that checks ids notices it.
inline std::vector<ConformanceCase> loadConformanceCases(const std::string& path = std::string(LW_CONFORMANCE_DIR) +
                                                                                   "/http1-requests.jsonl") {
    std::vector<ConformanceCase> cases;
    std::ifstream in(path, std::ios::binary);
    std::string line;
    while (std::getline(in, line)) {
        if (line.empty()) continue;
        ConformanceCase c;
        const auto fields = conformance_detail::parseFlatObject(line);
        if (fields) {
            const auto field = [&](const char* key) {
                const auto it = fields->find(key);
                return it == fields->end() ? std::string() : it->second;
            };
            const auto number = [&](const char* key) {
                const std::string text = field(key);
                int value = 0;
                const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
                return error == std::errc() && end == text.data() + text.size() ? value : 0;
            };
            const auto raw = conformance_detail::decodeBase64(field("raw_b64"));
            if (raw) {
                c.id = number("id");
                c.name = field("name");
                c.source = field("source");
                c.expect = field("expect");
                c.messages = number("messages");
                c.llhttpError = field("llhttp_error") == "null" ? std::string() : field("llhttp_error");
                c.raw = *raw;
            }
        }
        cases.push_back(std::move(c));
    }
    return cases;
}

}  // namespace loopwire::test
