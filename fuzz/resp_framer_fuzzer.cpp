// Fuzz target for core/broker/RespFramer and RespReader: any bytes, as what a Redis server (or something posing as
// one) sends a client.
//
// Checks the contracts they state: the input fed in random pieces, the way a client keeps the bytes of an unfinished
// reply, finds exactly the replies that framing it whole finds, with the same lengths, and the same error; every
// reply found whole can be read to its last element by RespReader without running past it; an error reply read as a
// MOVED or ASK redirection (RedisRedirection) gives a slot and port in range and a host inside the reply; a reply
// read as a history read's (RedisHistory) gives entries whose offsets increase, and views inside the reply.
#include "broker/RedisHistory.h"
#include "broker/RedisRedirection.h"
#include "broker/RespFramer.h"
#include "broker/RespReader.h"

#include "FuzzSupport.h"

#include <string_view>
#include <vector>

namespace {

using loopwire::resp::RespFramer;
using loopwire::resp::RespReader;
using loopwire::resp::RespResult;
using loopwire::resp::RespStatus;
using loopwire::resp::RespValue;

// Reads every value of a whole reply, depth first; returns how many it read.
std::size_t readAll(RespReader reader, int depth) {
    std::size_t values = 0;
    RespValue value;
    while (reader.next(value)) {
        ++values;
        loopwire::broker::RedisRedirection redirection;
        if (value.isError() && redirection.read(value.text)) {
            FUZZ_CHECK(redirection.slot < 16384 && redirection.port > 0);
            FUZZ_CHECK(redirection.host.empty() ||
                       (redirection.host.data() >= value.text.data() &&
                        redirection.host.data() + redirection.host.size() <= value.text.data() + value.text.size()));
        }
        loopwire::broker::RedisHistory::Reply history;
        if (loopwire::broker::RedisHistory::readReply(value, history)) {
            std::uint64_t last = 0;
            for (const auto& entry : history.entries) {
                FUZZ_CHECK(entry.offset > last);
                last = entry.offset;
            }
            loopwire::broker::RedisHistory::recovered(history, {history.epoch, last});
        }
        if (value.isAggregate()) {
            FUZZ_CHECK(depth < 16);
            readAll(value.elements(), depth + 1);
        }
    }
    FUZZ_CHECK(reader.remaining() == 0);
    return values;
}

struct Outcome {
    std::vector<std::size_t> replies;
    RespResult last;
};

Outcome frameWhole(std::string_view input) {
    Outcome outcome;
    RespFramer framer;
    std::size_t start = 0;
    for (;;) {
        RespResult result = framer.next(input.substr(start));
        outcome.last = result;
        if (result.status != RespStatus::Complete) return outcome;
        FUZZ_CHECK(result.consumed > 0 && result.consumed <= input.size() - start);
        std::string_view reply = input.substr(start, result.consumed);
        FUZZ_CHECK(readAll(RespReader(reply), 0) == 1);
        outcome.replies.push_back(result.consumed);
        start += result.consumed;
    }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const std::string_view input(reinterpret_cast<const char*>(data), size);
    const Outcome whole = frameWhole(input);

    // The same bytes arriving in pieces: the framer sees the unfinished reply's bytes, then those and more.
    loopwire::fuzz::PieceSizes pieces(static_cast<std::uint32_t>(size) * 2654435761u, 64);
    RespFramer framer;
    std::size_t start = 0;
    std::size_t received = 0;
    std::size_t found = 0;
    while (received < size) {
        received += pieces.next(size - received);
        for (;;) {
            RespResult result = framer.next(input.substr(start, received - start));
            if (result.status == RespStatus::NeedMore) break;
            if (result.status == RespStatus::Error) {
                FUZZ_CHECK(found == whole.replies.size());
                FUZZ_CHECK(whole.last.status == RespStatus::Error && whole.last.error == result.error);
                return 0;
            }
            FUZZ_CHECK(found < whole.replies.size() && whole.replies[found] == result.consumed);
            ++found;
            start += result.consumed;
        }
    }
    FUZZ_CHECK(found == whole.replies.size());
    FUZZ_CHECK(whole.last.status == RespStatus::NeedMore);
    return 0;
}
