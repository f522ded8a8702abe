// AcceptEncoding: a request's Accept-Encoding field (RFC 9110 §12.5.3) read to choose the content coding of the
// response among those the server can send for it.
//
// Pure: it reads field values, never sees a socket, a file or a compressor, and allocates nothing (a weight for each
// coding it knows, in a fixed array). The request's handler calls read() once per Accept-Encoding field line, in
// order (several lines are one list, RFC 9110 §5.3), then choose() with the codings it can offer for this response:
// every one a compressor can produce on the fly, or only the variants a static file has on disk (.br and .gz, say).
// choose() may be called again with other offers; read() after choose() adds to the list.
//
// How the field is weighed:
//   - Each element names a coding, with an optional weight ";q=" of at most three decimals between 0 and 1. Names
//     and the "q" are case-insensitive; "x-gzip" is gzip. An element that breaks the grammar (q=1.5, q=0.1234, a
//     parameter other than q, whitespace around "=") is skipped as if absent; the other elements stand. Empty list
//     elements and whitespace around the separators are accepted; codings not known here are ignored.
//   - q=0 forbids a coding. A coding listed twice takes the lower of its weights.
//   - "*" weighs every coding the field does not name, identity included.
//   - No field, an empty field, or one that makes no offered coding acceptable: identity. (RFC 9110 lets a server
//     take a missing field as "anything"; like every common server, loopwire compresses only when asked.)
//   - Otherwise the acceptable offered coding of the highest weight; on a tie, the one the server's preference puts
//     first (by default kServerPreference: brotli, zstd, gzip). Identity wins only when the client weighs it above
//     every acceptable offered coding: on a tie, the smaller body is sent.
//   - When the client forbids identity ("identity;q=0", or "*;q=0" with no identity element) and accepts no offered
//     coding, the choice is identity all the same, marked not acceptable: the caller sends the representation
//     uncompressed, as nginx and h2o do and as RFC 9110 prefers, or answers 406 if it would rather.
//   - More than kMaxElements non-empty elements, counted over all the lines: the field is read no further and is
//     disregarded, so the choice is identity, which is always a correct answer.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <span>
#include <string_view>

namespace loopwire::compress {

enum class ContentCoding : std::uint8_t { Identity, Gzip, Brotli, Zstd };

// The token that names coding in a Content-Encoding field: "identity", "gzip", "br" or "zstd".
std::string_view contentCodingToken(ContentCoding coding) noexcept;

// A set of codings, one bit each: what the server can offer for one response. Identity is always offered, whether
// the set holds it or not.
class CodingSet {
public:
    constexpr CodingSet() noexcept = default;
    constexpr CodingSet(std::initializer_list<ContentCoding> codings) noexcept {
        for (ContentCoding coding : codings)
            add(coding);
    }

    constexpr CodingSet& add(ContentCoding coding) noexcept {
        bits_ = static_cast<std::uint8_t>(bits_ | bitOf(coding));
        return *this;
    }
    constexpr CodingSet& remove(ContentCoding coding) noexcept {
        bits_ = static_cast<std::uint8_t>(bits_ & ~bitOf(coding));
        return *this;
    }
    constexpr bool contains(ContentCoding coding) const noexcept { return (bits_ & bitOf(coding)) != 0; }

    friend constexpr bool operator==(CodingSet, CodingSet) noexcept = default;

private:
    static constexpr std::uint8_t bitOf(ContentCoding coding) noexcept {
        return static_cast<std::uint8_t>(1u << static_cast<unsigned>(coding));
    }

    std::uint8_t bits_ = 0;
};

struct CodingChoice {
    ContentCoding coding = ContentCoding::Identity;
    // False only when the client forbids identity and accepts no offered coding; coding is Identity then.
    bool acceptable = true;

    friend constexpr bool operator==(const CodingChoice&, const CodingChoice&) noexcept = default;
};

class AcceptEncoding {
public:
    // Non-empty list elements examined over all the field lines; a field with more is disregarded (identity).
    // Browsers send four or five.
    static constexpr std::size_t kMaxElements = 16;
    // The order in which the server breaks a tie of weights: brotli compresses text smallest, zstd next and faster
    // than gzip, gzip is the one every client has.
    static constexpr std::array<ContentCoding, 3> kServerPreference{ContentCoding::Brotli, ContentCoding::Zstd,
                                                                    ContentCoding::Gzip};

    // Reads one Accept-Encoding field line (its value, without the name) into the weights. Call once per line, in
    // the order they came; none when the request has no Accept-Encoding field. Keeps no reference to the value.
    void read(std::string_view fieldValue) noexcept;

    // The coding to send among offered (Identity is always possible), as the lines read so far ask. preference
    // breaks ties of weight among the compressing codings, the first winning; an offered coding it does not name
    // comes after those it does, in kServerPreference's order. Identity in preference is ignored: it loses every
    // tie. Reads nothing but this object; may be called any number of times.
    CodingChoice choose(CodingSet offered,
                        std::span<const ContentCoding> preference = kServerPreference) const noexcept;

private:
    // The client's weight for one coding: thousandths, 0 (forbidden) to 1000, or kUnlisted.
    static constexpr std::uint16_t kUnlisted = 0xFFFF;
    // Weights by ContentCoding, then the one "*" gives.
    static constexpr std::size_t kStarSlot = 4;

    // The weight the field gives coding: its own element's, else the one "*" gives, else kUnlisted.
    std::uint16_t weightOf(ContentCoding coding) const noexcept;
    // Records one element: a coding named by name with weight, the lower one when it was named before.
    void weigh(std::string_view name, std::uint16_t weight) noexcept;

    std::array<std::uint16_t, kStarSlot + 1> weights_{kUnlisted, kUnlisted, kUnlisted, kUnlisted, kUnlisted};
    std::size_t elements_ = 0;
    bool disregarded_ = false;
};

}  // namespace loopwire::compress
