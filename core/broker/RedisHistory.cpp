#include "RedisHistory.h"

#include "broker/RedisSlot.h"
#include "broker/RespReader.h"
#include "broker/RespWriter.h"

#include <array>
#include <charconv>

namespace loopwire::broker {

namespace {

// KEYS: the meta hash, the stream. ARGV: size, ttl (seconds, 0: none), the publishing App's epoch seed, PUBLISH
// or SPUBLISH, the channel, the envelope, the message. A history whose meta is gone starts a new epoch: the first
// kEpochBytes hex digits of the SHA-1 of the seed, Redis's clock (seconds and microseconds) and the key, so that
// the same App starting the same topic's history again (after its ttl, a FLUSHALL) never gives it the epoch of its
// last life. The stream is emptied then, so that offset 1 of a new epoch is never below the ID of an entry left
// from the last one. The offset is formatted with %d: Lua's own number formatting turns large integers into
// exponents.
constexpr std::string_view kPublishScript = R"lua(local epoch = redis.call('HGET', KEYS[1], 'epoch')
if not epoch then
  local now = redis.call('TIME')
  epoch = string.sub(redis.sha1hex(ARGV[3] .. ':' .. now[1] .. ':' .. now[2] .. ':' .. KEYS[1]), 1, 16)
  redis.call('DEL', KEYS[2])
  redis.call('HSET', KEYS[1], 'epoch', epoch)
end
local offset = string.format('%d', redis.call('HINCRBY', KEYS[1], 'offset', 1))
redis.call('XADD', KEYS[2], 'MAXLEN', ARGV[1], offset .. '-0', 'e', ARGV[6], 'm', ARGV[7])
local ttl = tonumber(ARGV[2])
if ttl > 0 then
  redis.call('EXPIRE', KEYS[1], ttl)
  redis.call('EXPIRE', KEYS[2], ttl)
end
redis.call(ARGV[4], ARGV[5], ARGV[6] .. epoch .. ':' .. offset .. ':' .. ARGV[7])
return offset
)lua";

// KEYS: the meta hash, the stream. ARGV: the marker, the read's id, the epoch asked for ('' for the current one),
// the offset after which entries are wanted.
constexpr std::string_view kReadScript = R"lua(local meta = redis.call('HMGET', KEYS[1], 'epoch', 'offset')
local epoch = meta[1] or ''
local entries = {}
if epoch ~= '' and (ARGV[3] == '' or ARGV[3] == epoch) then
  entries = redis.call('XRANGE', KEYS[2], string.format('%d', tonumber(ARGV[4]) + 1), '+')
end
return {ARGV[1], ARGV[2], epoch, meta[2] or '0', entries}
)lua";

constexpr std::string_view kTagAlphabet = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";
constexpr std::size_t kMaxTagBytes = 4;

struct SlotTags {
    struct Tag {
        std::array<char, kMaxTagBytes> bytes{};
        std::uint8_t size = 0;
    };
    std::array<Tag, RedisSlot::kSlotCount> tags{};

    // The shortest strings first, so that most tags are three characters or fewer.
    SlotTags() {
        std::size_t found = 0;
        for (std::size_t length = 1; length <= kMaxTagBytes && found < tags.size(); ++length) {
            std::array<std::size_t, kMaxTagBytes> digits{};
            for (;;) {
                std::array<char, kMaxTagBytes> bytes{};
                for (std::size_t i = 0; i < length; ++i)
                    bytes[i] = kTagAlphabet[digits[i]];
                const std::uint16_t slot = RedisSlot::of({bytes.data(), length}, {});
                if (tags[slot].size == 0) {
                    tags[slot] = Tag{bytes, static_cast<std::uint8_t>(length)};
                    ++found;
                }
                std::size_t position = 0;
                while (position < length && ++digits[position] == kTagAlphabet.size())
                    digits[position++] = 0;
                if (position == length) break;
            }
        }
    }
};

const SlotTags& slotTags() {
    static const SlotTags tags;
    return tags;
}

// "{tag}h:" or "{tag}m:" into out.
std::string_view keyHead(char (&out)[RedisHistory::kMaxKeyHeadBytes], std::uint16_t slot, char kind) noexcept {
    const std::string_view tag = RedisHistory::slotTag(slot);
    std::size_t size = 0;
    out[size++] = '{';
    for (const char byte : tag)
        out[size++] = byte;
    out[size++] = '}';
    out[size++] = kind;
    out[size++] = ':';
    return {out, size};
}

// The two keys of prefix + topic's history, as script arguments (their heads live in this object).
struct HistoryKeys {
    HistoryKeys(std::string_view prefix, std::string_view topic) noexcept
        : slot(RedisSlot::of(prefix, topic)),
          meta(keyHead(metaHead, slot, 'm'), prefix, topic),
          stream(keyHead(streamHead, slot, 'h'), prefix, topic) {}

    std::uint16_t slot;
    char metaHead[RedisHistory::kMaxKeyHeadBytes];
    char streamHead[RedisHistory::kMaxKeyHeadBytes];
    resp::RespArgument meta;
    resp::RespArgument stream;
};

std::string_view digitsOf(char (&out)[20], std::uint64_t value) noexcept {
    const auto result = std::to_chars(out, out + sizeof out, value);
    return {out, static_cast<std::size_t>(result.ptr - out)};
}

// The unsigned number at the front of text (an offset, or a stream ID "<offset>-0"); false when there is none.
bool readNumber(std::string_view text, std::uint64_t& value) noexcept {
    const auto result = std::from_chars(text.data(), text.data() + text.size(), value);
    return result.ec == std::errc() && result.ptr != text.data();
}

}  // namespace

std::string_view RedisHistory::publishScript() noexcept { return kPublishScript; }

std::string_view RedisHistory::readScript() noexcept { return kReadScript; }

std::string_view RedisHistory::slotTag(std::uint16_t slot) noexcept {
    const SlotTags::Tag& tag = slotTags().tags[slot % RedisSlot::kSlotCount];
    return {tag.bytes.data(), tag.size};
}

void RedisHistory::appendPublish(ByteBuffer& out, std::string_view publishSha, std::string_view command,
                                 const PubSubHistoryOptions& history, std::string_view epoch, std::string_view prefix,
                                 std::string_view topic, std::string_view envelope, std::string_view message) {
    const HistoryKeys keys(prefix, topic);
    char size[20];
    char ttl[20];
    resp::RespWriter::appendCommand(out, {"EVALSHA",
                                          publishSha,
                                          "2",
                                          keys.meta,
                                          keys.stream,
                                          digitsOf(size, history.size),
                                          digitsOf(ttl, history.ttlSeconds),
                                          epoch,
                                          command,
                                          {prefix, topic},
                                          envelope,
                                          message});
}

void RedisHistory::appendRead(ByteBuffer& out, std::string_view readSha, std::string_view prefix,
                              std::string_view topic, std::uint64_t id, PubSubPosition since) {
    const HistoryKeys keys(prefix, topic);
    char idDigits[20];
    char offset[20];
    resp::RespWriter::appendCommand(
        out, {"EVALSHA", readSha, "2", keys.meta, keys.stream, kReplyMarker, digitsOf(idDigits, id), since.epoch,
              digitsOf(offset, since.epoch.empty() ? 0 : since.offset)});
}

bool RedisHistory::isReadReply(const resp::RespValue& value) noexcept {
    if (value.type != resp::RespType::Array) return false;
    resp::RespReader elements = value.elements();
    resp::RespValue marker;
    return elements.next(marker) && marker.isString() && marker.text == kReplyMarker;
}

bool RedisHistory::readReply(const resp::RespValue& value, Reply& reply) {
    reply = Reply{};
    if (!isReadReply(value) || value.integer != 5) return false;
    resp::RespReader elements = value.elements();
    resp::RespValue marker;
    resp::RespValue id;
    resp::RespValue epoch;
    resp::RespValue offset;
    resp::RespValue entries;
    elements.next(marker);
    if (!elements.next(id) || !id.isString() || !readNumber(id.text, reply.id)) return false;
    if (!elements.next(epoch) || !epoch.isString() || !elements.next(offset) || !offset.isString() ||
        !readNumber(offset.text, reply.offset) || !elements.next(entries) || entries.type != resp::RespType::Array) {
        return false;
    }
    reply.epoch = epoch.text;
    resp::RespReader list = entries.elements();
    resp::RespValue entry;
    std::uint64_t last = 0;
    while (list.next(entry)) {
        resp::RespReader parts = entry.elements();
        resp::RespValue entryId;
        resp::RespValue fields;
        Entry read;
        if (entry.type != resp::RespType::Array || entry.integer != 2 || !parts.next(entryId) || !entryId.isString() ||
            !readNumber(entryId.text, read.offset) || !parts.next(fields) || fields.type != resp::RespType::Array ||
            read.offset <= last) {
            return false;
        }
        resp::RespReader pairs = fields.elements();
        resp::RespValue name;
        resp::RespValue field;
        while (pairs.next(name) && pairs.next(field)) {
            if (!name.isString() || !field.isString()) return false;
            if (name.text == "e") read.envelope = field.text;
            if (name.text == "m") read.message = field.text;
        }
        last = read.offset;
        reply.entries.push_back(read);
    }
    return true;
}

bool RedisHistory::recovered(const Reply& reply, PubSubPosition since) noexcept {
    const bool sinceGiven = !since.epoch.empty();
    const std::uint64_t after = sinceGiven ? since.offset : 0;
    if (reply.epoch.empty()) return !sinceGiven;
    if (sinceGiven && since.epoch != reply.epoch) return false;
    if (after > reply.offset) return false;
    if (after == reply.offset) return true;
    return !reply.entries.empty() && reply.entries.front().offset == after + 1 &&
           reply.entries.back().offset == reply.offset;
}

}  // namespace loopwire::broker
