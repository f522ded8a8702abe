// HpackHuffman: the static Huffman code of HPACK (RFC 7541 section 5.2 and appendix B), both ways.
//
// The code is canonical: within one length, codes ascend with the symbol. So the table here is the length of each
// symbol's code (257 of them, EOS the last), and the codes are derived from the lengths at compile time.
//
// Contract
// - huffmanEncodedLength(text): the bytes huffmanEncode writes for text (bits rounded up to a byte).
// - huffmanEncode(text, out): writes exactly huffmanEncodedLength(text) bytes to out; the last byte is padded with
//   the high bits of EOS (ones), as the RFC requires. Returns the end of what it wrote.
// - huffmanDecode(encoded, out, capacity): decodes into out and returns the number of bytes written;
//   kHuffmanInvalid when the input is not a valid string (EOS inside it, padding of 8 bits or more, padding that is
//   not all ones); kHuffmanTooLong when it decodes to more than capacity bytes (a decoded string is at most
//   huffmanDecodedBound(encoded.size()) bytes long, the shortest code being 5 bits).
// Pure: no allocation, no state.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>

namespace loopwire::h2 {

inline constexpr std::size_t kHuffmanInvalid = static_cast<std::size_t>(-1);
inline constexpr std::size_t kHuffmanTooLong = static_cast<std::size_t>(-2);

// The most bytes a Huffman string of encodedBytes can decode to.
constexpr std::size_t huffmanDecodedBound(std::size_t encodedBytes) noexcept { return encodedBytes * 8 / 5; }

std::size_t huffmanEncodedLength(std::string_view text) noexcept;
char* huffmanEncode(std::string_view text, char* out) noexcept;
std::size_t huffmanDecode(std::string_view encoded, char* out, std::size_t capacity) noexcept;

}  // namespace loopwire::h2
