#include "compress/Encoder.h"

#include <zlib.h>
#if defined(LW_COMPRESS_HAVE_BROTLI)
#include <brotli/encode.h>
#endif
#if defined(LW_COMPRESS_HAVE_ZSTD)
#include <zstd.h>
#endif

#include <algorithm>
#include <bit>
#include <new>

#if defined(LW_COMPRESS_RESOLVE_AT_RUNTIME)
#include <dlfcn.h>
#endif

namespace loopwire::compress {

namespace {

// Brotli's and zstd's functions, called through these tables: in the Node addon they are looked up in the process
// (the node executable exports Node's own copies) when first needed, since an addon that referred to them directly
// would fail at its first call on a Node without them (zstd before 22.15) instead of leaving the coding out; in the
// standalone library they are the linked functions themselves.
#if defined(LW_COMPRESS_HAVE_BROTLI)
struct BrotliFunctions {
    decltype(&BrotliEncoderCreateInstance) createInstance = nullptr;
    decltype(&BrotliEncoderSetParameter) setParameter = nullptr;
    decltype(&BrotliEncoderCompressStream) compressStream = nullptr;
    decltype(&BrotliEncoderHasMoreOutput) hasMoreOutput = nullptr;
    decltype(&BrotliEncoderIsFinished) isFinished = nullptr;
    decltype(&BrotliEncoderDestroyInstance) destroyInstance = nullptr;

    bool complete() const noexcept {
        return createInstance && setParameter && compressStream && hasMoreOutput && isFinished && destroyInstance;
    }
};

#endif

#if defined(LW_COMPRESS_HAVE_ZSTD)
struct ZstdFunctions {
    decltype(&ZSTD_createCCtx) createContext = nullptr;
    decltype(&ZSTD_freeCCtx) freeContext = nullptr;
    decltype(&ZSTD_CCtx_setParameter) setParameter = nullptr;
    decltype(&ZSTD_CCtx_setPledgedSrcSize) setPledgedSize = nullptr;
    decltype(&ZSTD_CCtx_reset) resetContext = nullptr;
    decltype(&ZSTD_compressStream2) compressStream = nullptr;
    decltype(&ZSTD_CStreamOutSize) outputSize = nullptr;
    decltype(&ZSTD_isError) isError = nullptr;
    decltype(&ZSTD_versionNumber) versionNumber = nullptr;

    bool complete() const noexcept {
        return createContext && freeContext && setParameter && setPledgedSize && resetContext && compressStream &&
               outputSize && isError && versionNumber;
    }
};

// ZSTD_compressStream2 and the parameter API are stable from zstd 1.4.0.
constexpr unsigned kMinZstdVersion = 10400;
#endif

#if defined(LW_COMPRESS_RESOLVE_AT_RUNTIME)
template <typename Function>
void resolve(Function& function, const char* name) noexcept {
    function = reinterpret_cast<Function>(::dlsym(RTLD_DEFAULT, name));
}
// A macro, because the addon must not even name the function outside a string: taking its address would make the
// dynamic linker resolve it when the module loads, and fail there on a Node without it.
#define LW_RESOLVE(table, field, symbol) resolve((table).field, #symbol)
#else
#define LW_RESOLVE(table, field, symbol) ((table).field = &(symbol))
#endif

#if defined(LW_COMPRESS_HAVE_BROTLI)
const BrotliFunctions* brotli() noexcept {
    static const BrotliFunctions functions = [] {
        BrotliFunctions table;
        LW_RESOLVE(table, createInstance, BrotliEncoderCreateInstance);
        LW_RESOLVE(table, setParameter, BrotliEncoderSetParameter);
        LW_RESOLVE(table, compressStream, BrotliEncoderCompressStream);
        LW_RESOLVE(table, hasMoreOutput, BrotliEncoderHasMoreOutput);
        LW_RESOLVE(table, isFinished, BrotliEncoderIsFinished);
        LW_RESOLVE(table, destroyInstance, BrotliEncoderDestroyInstance);
        return table;
    }();
    return functions.complete() ? &functions : nullptr;
}

#endif

#if defined(LW_COMPRESS_HAVE_ZSTD)
const ZstdFunctions* zstd() noexcept {
    static const ZstdFunctions functions = [] {
        ZstdFunctions table;
        LW_RESOLVE(table, createContext, ZSTD_createCCtx);
        LW_RESOLVE(table, freeContext, ZSTD_freeCCtx);
        LW_RESOLVE(table, setParameter, ZSTD_CCtx_setParameter);
        LW_RESOLVE(table, setPledgedSize, ZSTD_CCtx_setPledgedSrcSize);
        LW_RESOLVE(table, resetContext, ZSTD_CCtx_reset);
        LW_RESOLVE(table, compressStream, ZSTD_compressStream2);
        LW_RESOLVE(table, outputSize, ZSTD_CStreamOutSize);
        LW_RESOLVE(table, isError, ZSTD_isError);
        LW_RESOLVE(table, versionNumber, ZSTD_versionNumber);
        return table;
    }();
    return functions.complete() && functions.versionNumber() >= kMinZstdVersion ? &functions : nullptr;
}

#endif

#undef LW_RESOLVE

// Output room made at a time, beyond what a codec bounds for the input at hand.
constexpr std::size_t kOutputStep = 16 * 1024;

// The window (log2 bytes) that holds a body of sizeHint bytes, within [low, high]; high for an unknown size.
int windowFor(std::uint64_t sizeHint, int low, int high) noexcept {
    if (sizeHint == 0) return high;
    const int bits = static_cast<int>(std::bit_width(sizeHint - 1));
    return std::clamp(bits, low, high);
}

class GzipEncoder final : public Encoder {
public:
    explicit GzipEncoder(int level) noexcept : Encoder(ContentCoding::Gzip) {
        // 15 + 16: a 32 KiB window with the gzip wrapper (RFC 1952), which is what "gzip" names in HTTP.
        ready_ = deflateInit2(&stream_, std::clamp(level, 1, 9), Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) == Z_OK;
    }
    ~GzipEncoder() override {
        if (ready_) deflateEnd(&stream_);
    }
    bool ready() const noexcept { return ready_; }

    bool encode(std::string_view input, ByteBuffer& out, Flush flush) override {
        const std::size_t start = out.size();
        stream_.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(input.data()));
        stream_.avail_in = static_cast<uInt>(input.size());
        const int mode = flush == Flush::Finish ? Z_FINISH : flush == Flush::Sync ? Z_SYNC_FLUSH : Z_NO_FLUSH;
        while (true) {
            const std::size_t room = deflateBound(&stream_, stream_.avail_in) + kOutputStep;
            char* at = out.prepare(room);
            stream_.next_out = reinterpret_cast<Bytef*>(at);
            stream_.avail_out = static_cast<uInt>(room);
            const int status = deflate(&stream_, mode);
            out.commit(room - stream_.avail_out);
            if (status == Z_STREAM_END) return true;
            if (status != Z_OK && status != Z_BUF_ERROR) {
                out.truncate(start);
                return false;
            }
            // Done when the input is taken and deflate left room unused (its flush is complete); Finish goes on
            // until Z_STREAM_END.
            if (stream_.avail_in == 0 && stream_.avail_out != 0 && mode != Z_FINISH) return true;
        }
    }
    bool reset() override { return deflateReset(&stream_) == Z_OK; }

private:
    z_stream stream_{};
    bool ready_ = false;
};

#if defined(LW_COMPRESS_HAVE_BROTLI)
class BrotliEncoder final : public Encoder {
public:
    BrotliEncoder(const BrotliFunctions& functions, int level, std::uint64_t sizeHint) noexcept
        : Encoder(ContentCoding::Brotli), functions_(functions), level_(level), sizeHint_(sizeHint) {
        state_ = makeState();
    }
    ~BrotliEncoder() override {
        if (state_ != nullptr) functions_.destroyInstance(state_);
    }
    bool ready() const noexcept { return state_ != nullptr; }

    bool encode(std::string_view input, ByteBuffer& out, Flush flush) override {
        const std::size_t start = out.size();
        std::size_t availableIn = input.size();
        auto nextIn = reinterpret_cast<const std::uint8_t*>(input.data());
        const BrotliEncoderOperation operation = flush == Flush::Finish ? BROTLI_OPERATION_FINISH
                                                 : flush == Flush::Sync ? BROTLI_OPERATION_FLUSH
                                                                        : BROTLI_OPERATION_PROCESS;
        while (true) {
            // Brotli flushes (or finishes) only in a call that starts with the input taken: a flush is complete after
            // such a call leaves no output behind (encode.h, BROTLI_OPERATION_FLUSH).
            const bool inputTaken = availableIn == 0;
            char* at = out.prepare(kOutputStep);
            std::size_t availableOut = kOutputStep;
            auto nextOut = reinterpret_cast<std::uint8_t*>(at);
            if (!functions_.compressStream(state_, operation, &availableIn, &nextIn, &availableOut, &nextOut,
                                           nullptr)) {
                out.truncate(start);
                return false;
            }
            out.commit(kOutputStep - availableOut);
            if (functions_.hasMoreOutput(state_) || availableIn != 0) continue;
            if (flush == Flush::None) return true;
            if (flush == Flush::Finish ? functions_.isFinished(state_) : inputTaken) return true;
        }
    }
    bool reset() override {
        // Brotli has no reset: a new state, with the same parameters.
        if (state_ != nullptr) functions_.destroyInstance(state_);
        state_ = makeState();
        return state_ != nullptr;
    }

private:
    BrotliEncoderState* makeState() noexcept {
        BrotliEncoderState* state = functions_.createInstance(nullptr, nullptr, nullptr);
        if (state == nullptr) return nullptr;
        functions_.setParameter(state, BROTLI_PARAM_QUALITY, static_cast<std::uint32_t>(std::clamp(level_, 0, 11)));
        const int window = windowFor(sizeHint_, BROTLI_MIN_WINDOW_BITS, kStreamingBrotliWindowBits);
        functions_.setParameter(state, BROTLI_PARAM_LGWIN, static_cast<std::uint32_t>(window));
        if (sizeHint_ != 0) {
            functions_.setParameter(state, BROTLI_PARAM_SIZE_HINT,
                                    static_cast<std::uint32_t>(std::min<std::uint64_t>(sizeHint_, 1u << 30)));
        }
        return state;
    }

    const BrotliFunctions& functions_;
    int level_;
    std::uint64_t sizeHint_;
    BrotliEncoderState* state_ = nullptr;
};

#endif

#if defined(LW_COMPRESS_HAVE_ZSTD)
class ZstdEncoder final : public Encoder {
public:
    ZstdEncoder(const ZstdFunctions& functions, int level, std::uint64_t sizeHint) noexcept
        : Encoder(ContentCoding::Zstd), functions_(functions), sizeHint_(sizeHint) {
        context_ = functions_.createContext();
        if (context_ == nullptr) return;
        functions_.setParameter(context_, ZSTD_c_compressionLevel, std::clamp(level, 1, 19));
        // A window no client needs more than 8 MiB for (RFC 9659): with a known size, zstd sizes it to the body (at
        // most 2^23 up to level 19, the highest taken); for a stream, the streaming window.
        if (sizeHint == 0) functions_.setParameter(context_, ZSTD_c_windowLog, kStreamingZstdWindowLog);
        setPledgedSize();
    }
    ~ZstdEncoder() override {
        if (context_ != nullptr) functions_.freeContext(context_);
    }
    bool ready() const noexcept { return context_ != nullptr; }

    bool encode(std::string_view input, ByteBuffer& out, Flush flush) override {
        const std::size_t start = out.size();
        ZSTD_inBuffer in{input.data(), input.size(), 0};
        const ZSTD_EndDirective directive = flush == Flush::Finish ? ZSTD_e_end
                                            : flush == Flush::Sync ? ZSTD_e_flush
                                                                   : ZSTD_e_continue;
        const std::size_t step = std::max(functions_.outputSize(), kOutputStep);
        while (true) {
            char* at = out.prepare(step);
            ZSTD_outBuffer output{at, step, 0};
            const std::size_t remaining = functions_.compressStream(context_, &output, &in, directive);
            out.commit(output.pos);
            if (functions_.isError(remaining)) {
                out.truncate(start);
                return false;
            }
            const bool inputTaken = in.pos == in.size;
            if (directive == ZSTD_e_continue ? inputTaken : remaining == 0) return true;
        }
    }
    bool reset() override {
        if (functions_.isError(functions_.resetContext(context_, ZSTD_reset_session_only))) return false;
        setPledgedSize();
        return true;
    }

private:
    void setPledgedSize() noexcept {
        if (sizeHint_ != 0) functions_.setPledgedSize(context_, sizeHint_);
    }

    const ZstdFunctions& functions_;
    std::uint64_t sizeHint_;
    ZSTD_CCtx* context_ = nullptr;
};

#endif

template <typename Concrete, typename... Arguments>
std::unique_ptr<Encoder> made(Arguments&&... arguments) {
    auto encoder = std::unique_ptr<Concrete>(new (std::nothrow) Concrete(std::forward<Arguments>(arguments)...));
    if (encoder == nullptr || !encoder->ready()) return nullptr;
    return encoder;
}

}  // namespace

bool Encoder::available(ContentCoding coding) noexcept {
    switch (coding) {
        case ContentCoding::Gzip:
            return true;
        case ContentCoding::Brotli:
#if defined(LW_COMPRESS_HAVE_BROTLI)
            return brotli() != nullptr;
#else
            return false;
#endif
        case ContentCoding::Zstd:
#if defined(LW_COMPRESS_HAVE_ZSTD)
            return zstd() != nullptr;
#else
            return false;
#endif
        case ContentCoding::Identity:
            return false;
    }
    return false;
}

std::unique_ptr<Encoder> Encoder::create(ContentCoding coding, int level, std::uint64_t sizeHint) {
    switch (coding) {
        case ContentCoding::Gzip:
            return made<GzipEncoder>(level);
        case ContentCoding::Brotli:
#if defined(LW_COMPRESS_HAVE_BROTLI)
            if (const BrotliFunctions* functions = brotli()) return made<BrotliEncoder>(*functions, level, sizeHint);
#endif
            return nullptr;
        case ContentCoding::Zstd:
#if defined(LW_COMPRESS_HAVE_ZSTD)
            if (const ZstdFunctions* functions = zstd()) return made<ZstdEncoder>(*functions, level, sizeHint);
#endif
            return nullptr;
        case ContentCoding::Identity:
            return nullptr;
    }
    return nullptr;
}

bool compressWhole(ContentCoding coding, int level, std::string_view input, std::string& out) {
    std::unique_ptr<Encoder> encoder = Encoder::create(coding, level, input.size());
    if (!encoder) return false;
    ByteBuffer buffer;
    if (!encoder->encode(input, buffer, Encoder::Flush::Finish)) return false;
    out.assign(buffer.view());
    return true;
}

}  // namespace loopwire::compress
