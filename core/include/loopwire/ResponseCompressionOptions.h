// ResponseCompressionOptions: how App::compress codes the responses of the routes it names (app.compress in
// JavaScript). docs/compression.md has the whole behaviour and the measurements behind the defaults.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace loopwire {

struct ResponseCompressionOptions {
    // The codings offered ("zstd", "br", "gzip"), first the one the server prefers when the client weighs several
    // alike (browsers weigh them alike); the client's weights (q-values) come first. zstd first: it codes a response
    // as small as the others at a third of their cost (docs/decisions/compression.md). A coding this process cannot
    // make (zstd in a Node addon on a Node before 22.15) is left out.
    std::vector<std::string> codings = {"zstd", "br", "gzip"};
    // Bodies shorter than this go out as they are: the coding's framing would eat most of the gain. A body written
    // with write() (length unknown) is coded whatever its length.
    std::uint64_t minBytes = 1024;
    // Levels: gzip 1-9, brotli 0-11, zstd 1-19. The defaults are measured for responses coded on every request
    // (docs/decisions/compression.md), not for files coded once.
    int gzipLevel = 4;
    int brotliLevel = 4;
    int zstdLevel = 3;
};

}  // namespace loopwire
