// Nanoseconds and bytes per second of the pure codecs on typical inputs: the request parser (a short API
// request and a browser-sized one), the chunked decoder, the router (static, parameter and fall-through), and the
// UTF-8 validation of a 4 KiB text message (ASCII, and mixed text of two-, three- and four-byte characters) on
// each path the machine has.
#include "http/ChunkedDecoder.h"
#include "http/HttpParser.h"
#include "http/Router.h"
#include "ws/Utf8Validator.h"

#include <benchmark/benchmark.h>

#include <memory>
#include <string>

namespace loopwire {
namespace {

const std::string kShortRequest =
    "GET /api/v1/users?id=42 HTTP/1.1\r\nHost: example.com\r\nUser-Agent: bench/1.0\r\nAccept: */*\r\n"
    "Connection: keep-alive\r\n\r\n";

// A request shaped like a browser's page load: a long path, a dozen fields, a long cookie.
const std::string kBrowserRequest =
    "GET /shop/catalogue/2026/winter/long-product-name-with-several-words-in-it.html?ref=home HTTP/1.1\r\n"
    "Host: shop.loopwire.test\r\n"
    "User-Agent: Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/156.0 Safari/537.36\r\n"
    "Accept: text/html,application/xhtml+xml,application/xml;q=0.9,image/avif,image/webp,*/*;q=0.8\r\n"
    "Accept-Language: en-GB,en;q=0.9,de;q=0.8\r\n"
    "Accept-Encoding: gzip, deflate, br, zstd\r\n"
    "Referer: https://shop.loopwire.test/shop/catalogue/2026/winter/\r\n"
    "Sec-Fetch-Dest: document\r\n"
    "Sec-Fetch-Mode: navigate\r\n"
    "Sec-Fetch-Site: same-origin\r\n"
    "Upgrade-Insecure-Requests: 1\r\n"
    "Connection: keep-alive\r\n"
    "Cookie: session=4f9a1c2e7b3d8a6f0e5c1b9d2a7f3e8c; cart=sku-1001.2,sku-2044.1; theme=dark; "
    "consent=analytics%3Dno%26ads%3Dno; last_seen=2026-11-30T04%3A00%3A00Z\r\n"
    "\r\n";

void parse(benchmark::State& state, const std::string& request) {
    std::string buffer = request;
    HttpParser parser;
    auto head = std::make_unique<RequestHead>();
    for (auto _ : state) {
        ParseResult result = parser.parse(buffer.data(), buffer.size(), *head);
        benchmark::DoNotOptimize(result);
        if (result.status != ParseStatus::Complete) state.SkipWithError("not complete");
    }
    state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations() * request.size()));
}

void BM_ParseShortRequest(benchmark::State& state) { parse(state, kShortRequest); }
void BM_ParseBrowserRequest(benchmark::State& state) { parse(state, kBrowserRequest); }
BENCHMARK(BM_ParseShortRequest);
BENCHMARK(BM_ParseBrowserRequest);

void BM_DecodeChunked64KiB(benchmark::State& state) {
    std::string body;
    std::string chunk(1024, 'x');
    for (int i = 0; i < 64; ++i)
        body += "400\r\n" + chunk + "\r\n";
    body += "0\r\n\r\n";
    ChunkedDecoder decoder;
    for (auto _ : state) {
        decoder.reset();
        std::string_view input = body;
        std::size_t payload = 0;
        for (;;) {
            ChunkedResult result = decoder.decode(input);
            payload += result.data.size();
            input.remove_prefix(result.consumed);
            if (result.status != ParseStatus::NeedMore || input.empty()) break;
        }
        benchmark::DoNotOptimize(payload);
    }
    state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations() * body.size()));
}
BENCHMARK(BM_DecodeChunked64KiB);

Router& sampleRouter() {
    static Router router;
    static bool filled = false;
    if (!filled) {
        const char* patterns[] = {
            "/",         "/plaintext", "/json", "/api/v1/users", "/api/v1/users/:id", "/api/v1/users/:id/posts/:post",
            "/static/*", "/health"};
        std::uint32_t id = 0;
        for (const char* pattern : patterns)
            router.add("GET", pattern, id++);
        router.add("POST", "/api/v1/users", id++);
        router.add(Router::kAnyMethod, "/*", id++);
        filled = true;
    }
    return router;
}

void route(benchmark::State& state, std::string_view method, std::string_view path) {
    Router& router = sampleRouter();
    for (auto _ : state) {
        std::uint32_t found = 0;
        router.dispatch(method, path, [&found](const RouteMatch& match) {
            found = match.handlerId();
            return true;
        });
        benchmark::DoNotOptimize(found);
    }
}

void BM_RouteStatic(benchmark::State& state) { route(state, "GET", "/plaintext"); }
void BM_RouteParameters(benchmark::State& state) { route(state, "GET", "/api/v1/users/42/posts/7"); }
void BM_RouteFallThroughToAny(benchmark::State& state) { route(state, "DELETE", "/nothing/here"); }
BENCHMARK(BM_RouteStatic);
BENCHMARK(BM_RouteParameters);
BENCHMARK(BM_RouteFallThroughToAny);

// A 4 KiB text message: ASCII, or mixed text (Latin with accents, Greek, CJK, emoji).
std::string textMessage(bool ascii) {
    const std::string unit = ascii ? "The quick brown fox jumps over the lazy dog, again and again. "
                                   : "Grüße aus Zürich, καλημέρα κόσμε, 世界你好, 🎉🚀 und tschüss. ";
    std::string text;
    while (text.size() + unit.size() <= 4096)
        text += unit;
    return text;
}

void validate(benchmark::State& state, Utf8Path path, bool ascii) {
    if (!Utf8Validator::hasPath(path)) {
        state.SkipWithError("this machine lacks the path");
        return;
    }
    const std::string text = textMessage(ascii);
    for (auto _ : state) {
        bool valid = Utf8Validator::isValidWith(path, text);
        benchmark::DoNotOptimize(valid);
    }
    state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations() * text.size()));
}

BENCHMARK_CAPTURE(validate, ascii_portable, Utf8Path::Portable, true);
BENCHMARK_CAPTURE(validate, ascii_sse2, Utf8Path::Sse2, true);
BENCHMARK_CAPTURE(validate, ascii_avx2, Utf8Path::Avx2, true);
BENCHMARK_CAPTURE(validate, mixed_portable, Utf8Path::Portable, false);
BENCHMARK_CAPTURE(validate, mixed_sse2, Utf8Path::Sse2, false);
BENCHMARK_CAPTURE(validate, mixed_avx2, Utf8Path::Avx2, false);

}  // namespace
}  // namespace loopwire
