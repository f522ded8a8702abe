#include "compress/AcceptEncoding.h"

namespace loopwire::compress {

namespace {

constexpr std::uint16_t kFullWeight = 1000;

bool isOws(char c) noexcept { return c == ' ' || c == '\t'; }
bool isDigit(char c) noexcept { return c >= '0' && c <= '9'; }
char toLower(char c) noexcept { return c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c; }

void skipOws(std::string_view field, std::size_t& at) noexcept {
    while (at < field.size() && isOws(field[at]))
        ++at;
}

bool equalsIgnoringCase(std::string_view text, std::string_view lowerCase) noexcept {
    if (text.size() != lowerCase.size()) return false;
    for (std::size_t i = 0; i < text.size(); ++i) {
        if (toLower(text[i]) != lowerCase[i]) return false;
    }
    return true;
}

// A qvalue (RFC 9110 §12.4.2): "0" with at most three decimals, or "1" with at most three zeros, the "." optional
// in both. In thousandths; false when the bytes at `at` are not one.
bool readQvalue(std::string_view field, std::size_t& at, std::uint16_t& weight) noexcept {
    if (at == field.size() || (field[at] != '0' && field[at] != '1')) return false;
    const bool one = field[at] == '1';
    ++at;
    unsigned thousandths = 0;
    if (at < field.size() && field[at] == '.') {
        ++at;
        unsigned scale = 100;
        for (std::size_t digits = 0; at < field.size() && isDigit(field[at]); ++at, ++digits, scale /= 10) {
            if (digits == 3) return false;
            thousandths += static_cast<unsigned>(field[at] - '0') * scale;
        }
    }
    if (one && thousandths != 0) return false;
    weight = one ? kFullWeight : static_cast<std::uint16_t>(thousandths);
    return true;
}

// What follows a coding's name up to the end of its element: nothing, or the weight `OWS ";" OWS "q=" qvalue`,
// then optional whitespace. False when it is anything else, which the grammar does not allow.
bool readWeight(std::string_view field, std::size_t& at, std::uint16_t& weight) noexcept {
    weight = kFullWeight;
    skipOws(field, at);
    if (at == field.size() || field[at] == ',') return true;
    if (field[at] != ';') return false;
    ++at;
    skipOws(field, at);
    if (field.size() - at < 2 || toLower(field[at]) != 'q' || field[at + 1] != '=') return false;
    at += 2;
    if (!readQvalue(field, at, weight)) return false;
    skipOws(field, at);
    return at == field.size() || field[at] == ',';
}

}  // namespace

std::string_view contentCodingToken(ContentCoding coding) noexcept {
    switch (coding) {
        case ContentCoding::Gzip:
            return "gzip";
        case ContentCoding::Brotli:
            return "br";
        case ContentCoding::Zstd:
            return "zstd";
        case ContentCoding::Identity:
            break;
    }
    return "identity";
}

void AcceptEncoding::read(std::string_view field) noexcept {
    std::size_t at = 0;
    while (!disregarded_) {
        skipOws(field, at);
        if (at == field.size()) return;
        if (field[at] == ',') {
            ++at;
            continue;
        }
        if (++elements_ > kMaxElements) {
            disregarded_ = true;
            return;
        }
        // The name runs to the next separator. Its bytes need not be checked against the token grammar: only the
        // names of known codings count, and those are tokens.
        const std::size_t nameStart = at;
        while (at < field.size() && !isOws(field[at]) && field[at] != ',' && field[at] != ';')
            ++at;
        const std::string_view name = field.substr(nameStart, at - nameStart);
        std::uint16_t weight = kFullWeight;
        if (!name.empty() && readWeight(field, at, weight)) {
            weigh(name, weight);
        } else {
            // A malformed element is skipped whole. Accept-Encoding's grammar has no quoted strings, so its end is
            // the next comma.
            while (at < field.size() && field[at] != ',')
                ++at;
        }
    }
}

void AcceptEncoding::weigh(std::string_view name, std::uint16_t weight) noexcept {
    std::size_t slot = 0;
    if (equalsIgnoringCase(name, "br")) {
        slot = static_cast<std::size_t>(ContentCoding::Brotli);
    } else if (equalsIgnoringCase(name, "gzip") || equalsIgnoringCase(name, "x-gzip")) {
        slot = static_cast<std::size_t>(ContentCoding::Gzip);
    } else if (equalsIgnoringCase(name, "zstd")) {
        slot = static_cast<std::size_t>(ContentCoding::Zstd);
    } else if (equalsIgnoringCase(name, "identity")) {
        slot = static_cast<std::size_t>(ContentCoding::Identity);
    } else if (name == "*") {
        slot = kStarSlot;
    } else {
        return;
    }
    // RFC 9110 does not say which of two weights for one coding holds. The lower one does, so that a q=0 anywhere
    // in the list forbids the coding: sending one the client refused is the only wrong answer here.
    if (weights_[slot] == kUnlisted || weight < weights_[slot]) weights_[slot] = weight;
}

std::uint16_t AcceptEncoding::weightOf(ContentCoding coding) const noexcept {
    const std::uint16_t own = weights_[static_cast<std::size_t>(coding)];
    return own != kUnlisted ? own : weights_[kStarSlot];
}

CodingChoice AcceptEncoding::choose(CodingSet offered, std::span<const ContentCoding> preference) const noexcept {
    if (disregarded_) return {};
    ContentCoding best = ContentCoding::Identity;
    std::uint16_t bestWeight = 0;
    // Candidates in tie-breaking order, each replacing the best only with a strictly higher weight, so that a tie
    // stays with the earlier one. Codings the preference omits come after it; seeing one twice changes nothing.
    const auto consider = [&](ContentCoding coding) {
        if (coding == ContentCoding::Identity || !offered.contains(coding)) return;
        const std::uint16_t weight = weightOf(coding);
        if (weight != kUnlisted && weight > bestWeight) {
            best = coding;
            bestWeight = weight;
        }
    };
    for (ContentCoding coding : preference)
        consider(coding);
    for (ContentCoding coding : kServerPreference)
        consider(coding);
    // Identity the field does not weigh is acceptable (RFC 9110 §12.5.3) but ranks below every coding it accepts.
    const std::uint16_t identityWeight = weightOf(ContentCoding::Identity);
    if (bestWeight > 0 && (identityWeight == kUnlisted || identityWeight <= bestWeight)) {
        return {best, true};
    }
    return {ContentCoding::Identity, identityWeight != 0};
}

}  // namespace loopwire::compress
