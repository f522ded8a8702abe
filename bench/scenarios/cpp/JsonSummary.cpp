// A recursive-descent validator: each parse function consumes one value from pos_ and returns false on the first
// byte that breaks the grammar.
#include "JsonSummary.h"

namespace {

class JsonScanner {
public:
    explicit JsonScanner(std::string_view text) : text_(text) {}

    JsonSummary summarizeTopLevel() {
        JsonSummary summary;
        skipWhitespace();
        if (!parseObject(0, &summary)) return {};
        skipWhitespace();
        if (pos_ != text_.size()) return {};
        summary.valid = true;
        return summary;
    }

private:
    bool atEnd() const { return pos_ >= text_.size(); }
    char peek() const { return text_[pos_]; }

    void skipWhitespace() {
        while (!atEnd() && (peek() == ' ' || peek() == '\t' || peek() == '\n' || peek() == '\r'))
            ++pos_;
    }

    bool consume(char expected) {
        if (atEnd() || peek() != expected) return false;
        ++pos_;
        return true;
    }

    bool consumeWord(std::string_view word) {
        if (text_.substr(pos_, word.size()) != word) return false;
        pos_ += word.size();
        return true;
    }

    static bool isDigit(char c) { return c >= '0' && c <= '9'; }
    static bool isHexDigit(char c) { return isDigit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F'); }

    bool parseValue(std::size_t depth) {
        if (depth > kMaxJsonDepth || atEnd()) return false;
        switch (peek()) {
            case '{':
                return parseObject(depth, nullptr);
            case '[':
                return parseArray(depth);
            case '"':
                return parseString(nullptr);
            case 't':
                return consumeWord("true");
            case 'f':
                return consumeWord("false");
            case 'n':
                return consumeWord("null");
            default:
                return parseNumber();
        }
    }

    // top, when given, receives the member count and the "id" of this object (the top-level one only).
    bool parseObject(std::size_t depth, JsonSummary* top) {
        if (depth > kMaxJsonDepth || !consume('{')) return false;
        skipWhitespace();
        if (consume('}')) return true;
        for (;;) {
            std::string_view name;
            skipWhitespace();
            if (!parseString(&name)) return false;
            skipWhitespace();
            if (!consume(':')) return false;
            skipWhitespace();
            std::size_t valueStart = pos_;
            if (!parseValue(depth + 1)) return false;
            if (top != nullptr) {
                ++top->keys;
                if (name == "id") top->id = integerOrNull(text_.substr(valueStart, pos_ - valueStart));
            }
            skipWhitespace();
            if (consume('}')) return true;
            if (!consume(',')) return false;
        }
    }

    bool parseArray(std::size_t depth) {
        if (!consume('[')) return false;
        skipWhitespace();
        if (consume(']')) return true;
        for (;;) {
            skipWhitespace();
            if (!parseValue(depth + 1)) return false;
            skipWhitespace();
            if (consume(']')) return true;
            if (!consume(',')) return false;
        }
    }

    // raw, when given, receives the bytes between the quotes (escapes left as they are).
    bool parseString(std::string_view* raw) {
        if (!consume('"')) return false;
        std::size_t start = pos_;
        while (!atEnd()) {
            char c = peek();
            if (c == '"') {
                if (raw != nullptr) *raw = text_.substr(start, pos_ - start);
                ++pos_;
                return true;
            }
            if (static_cast<unsigned char>(c) < 0x20) return false;
            ++pos_;
            if (c != '\\') continue;
            if (atEnd()) return false;
            char escape = peek();
            ++pos_;
            if (escape == 'u') {
                for (int i = 0; i < 4; ++i) {
                    if (atEnd() || !isHexDigit(peek())) return false;
                    ++pos_;
                }
            } else if (std::string_view("\"\\/bfnrt").find(escape) == std::string_view::npos) {
                return false;
            }
        }
        return false;
    }

    bool parseDigits() {
        std::size_t start = pos_;
        while (!atEnd() && isDigit(peek()))
            ++pos_;
        return pos_ > start;
    }

    bool parseNumber() {
        consume('-');
        if (consume('0')) {
            // A leading zero stands alone.
        } else if (!parseDigits()) {
            return false;
        }
        if (consume('.') && !parseDigits()) return false;
        if (!atEnd() && (peek() == 'e' || peek() == 'E')) {
            ++pos_;
            if (!consume('+')) consume('-');
            if (!parseDigits()) return false;
        }
        return true;
    }

    // JSON.stringify() writes such an integer back as it was written, except -0, which it writes as 0.
    static std::string_view integerOrNull(std::string_view token) {
        std::string_view digits = token.starts_with('-') ? token.substr(1) : token;
        if (digits.empty() || digits.size() > kMaxIdDigits) return "null";
        for (char c : digits) {
            if (!isDigit(c)) return "null";
        }
        return token == "-0" ? "0" : token;
    }

    std::string_view text_;
    std::size_t pos_ = 0;
};

}  // namespace

JsonSummary summarizeJson(std::string_view text) { return JsonScanner(text).summarizeTopLevel(); }
