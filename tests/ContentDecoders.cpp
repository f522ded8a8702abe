#include "ContentDecoders.h"

#include "compress/Encoder.h"

#include <brotli/decode.h>
#include <zlib.h>
#include <zstd.h>

namespace loopwire::test {

std::optional<std::string> gunzip(std::string_view coded) {
    z_stream stream{};
    if (inflateInit2(&stream, 15 + 16) != Z_OK) return std::nullopt;
    std::string out;
    char buffer[16384];
    stream.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(coded.data()));
    stream.avail_in = static_cast<uInt>(coded.size());
    int status = Z_OK;
    do {
        stream.next_out = reinterpret_cast<Bytef*>(buffer);
        stream.avail_out = sizeof buffer;
        status = inflate(&stream, Z_SYNC_FLUSH);
        out.append(buffer, sizeof buffer - stream.avail_out);
    } while (status == Z_OK && (stream.avail_in > 0 || stream.avail_out == 0));
    inflateEnd(&stream);
    if (status != Z_OK && status != Z_STREAM_END && status != Z_BUF_ERROR) return std::nullopt;
    return out;
}

std::optional<std::string> unbrotli(std::string_view coded) {
    BrotliDecoderState* state = BrotliDecoderCreateInstance(nullptr, nullptr, nullptr);
    std::string out;
    std::size_t availableIn = coded.size();
    auto nextIn = reinterpret_cast<const std::uint8_t*>(coded.data());
    BrotliDecoderResult result;
    bool bufferFilled;
    // brotli's decoder may say it needs input although it has more to give (a flushed stream's end): called again
    // while it fills the buffer.
    do {
        std::uint8_t buffer[16384];
        std::size_t availableOut = sizeof buffer;
        std::uint8_t* nextOut = buffer;
        result = BrotliDecoderDecompressStream(state, &availableIn, &nextIn, &availableOut, &nextOut, nullptr);
        out.append(reinterpret_cast<char*>(buffer), sizeof buffer - availableOut);
        bufferFilled = availableOut == 0;
    } while (result == BROTLI_DECODER_RESULT_NEEDS_MORE_OUTPUT ||
             (result == BROTLI_DECODER_RESULT_NEEDS_MORE_INPUT && bufferFilled));
    BrotliDecoderDestroyInstance(state);
    if (result == BROTLI_DECODER_RESULT_ERROR) return std::nullopt;
    return out;
}

// Decodes with a decoder that refuses windows past 8 MiB, as RFC 9659 lets HTTP clients do.
std::optional<std::string> unzstd(std::string_view coded) {
    ZSTD_DCtx* context = ZSTD_createDCtx();
    ZSTD_DCtx_setParameter(context, ZSTD_d_windowLogMax, compress::Encoder::kMaxZstdWindowLog);
    std::string out;
    ZSTD_inBuffer in{coded.data(), coded.size(), 0};
    bool failed = false;
    // Until the input is taken and the decoder has nothing more to give (it filled the buffer last time).
    bool bufferFilled = true;
    while (in.pos < in.size || bufferFilled) {
        char buffer[16384];
        ZSTD_outBuffer output{buffer, sizeof buffer, 0};
        const std::size_t result = ZSTD_decompressStream(context, &output, &in);
        if (ZSTD_isError(result)) {
            failed = true;
            break;
        }
        out.append(buffer, output.pos);
        bufferFilled = output.pos == output.size;
    }
    ZSTD_freeDCtx(context);
    if (failed) return std::nullopt;
    return out;
}

std::optional<std::string> decode(compress::ContentCoding coding, std::string_view coded) {
    switch (coding) {
        case compress::ContentCoding::Gzip:
            return gunzip(coded);
        case compress::ContentCoding::Brotli:
            return unbrotli(coded);
        case compress::ContentCoding::Zstd:
            return unzstd(coded);
        case compress::ContentCoding::Identity:
            return std::string(coded);
    }
    return std::nullopt;
}

}  // namespace loopwire::test
