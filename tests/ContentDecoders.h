// Decoders of the content codings, for tests that check what loopwire compressed: each codec's own reference decoder
// (zlib's inflate, libbrotlidec, libzstd). nullopt when the bytes do not decode.
#pragma once

#include "compress/AcceptEncoding.h"

#include <optional>
#include <string>
#include <string_view>

namespace loopwire::test {

std::optional<std::string> gunzip(std::string_view coded);
std::optional<std::string> unbrotli(std::string_view coded);
// With a decoder that refuses windows past 8 MiB, as RFC 9659 lets HTTP clients do.
std::optional<std::string> unzstd(std::string_view coded);
std::optional<std::string> decode(compress::ContentCoding coding, std::string_view coded);

}  // namespace loopwire::test
