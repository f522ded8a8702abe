#include "DeclarativeProgram.h"

#include <loopwire/App.h>

#include <cstdint>

namespace loopwire::addon {

static_assert(App::Handler::fits<DeclarativeHandler>);

namespace {

enum Opcode : std::uint8_t {
    kEnd = 0,
    kWriteHeader = 1,
    kWriteBody = 2,
    kWriteQueryValue = 3,
    kWriteHeaderValue = 4,
    kWrite = 5,
    kWriteParameterValue = 6,
    kWriteStatus = 7,
};

// Reads a program front to back; a read past the end marks the reader failed and yields empty operands.
class Reader {
public:
    explicit Reader(std::string_view bytes) : rest_(bytes) {}

    bool atEnd() const noexcept { return rest_.empty(); }
    bool failed() const noexcept { return failed_; }

    std::uint8_t byte() noexcept {
        std::string_view taken = take(1);
        return taken.empty() ? 0 : static_cast<std::uint8_t>(taken[0]);
    }
    std::string_view shortText() noexcept {
        std::size_t length = byte();
        return take(length);
    }
    std::string_view longText() noexcept {
        std::size_t low = byte();
        std::size_t high = byte();
        return take(low | (high << 8));
    }

private:
    std::string_view take(std::size_t count) noexcept {
        if (rest_.size() < count) {
            failed_ = true;
            rest_ = {};
            return {};
        }
        std::string_view taken = rest_.substr(0, count);
        rest_.remove_prefix(count);
        return taken;
    }

    std::string_view rest_;
    bool failed_ = false;
};

}  // namespace

std::optional<DeclarativeProgram> DeclarativeProgram::parse(std::string_view bytes) {
    Reader reader(bytes);
    while (!reader.atEnd() && !reader.failed()) {
        switch (reader.byte()) {
            case kEnd:
            case kWrite:
                reader.longText();
                break;
            case kWriteHeader:
                reader.shortText();
                reader.shortText();
                break;
            case kWriteBody:
                break;
            case kWriteQueryValue:
            case kWriteHeaderValue:
            case kWriteParameterValue:
            case kWriteStatus:
                reader.shortText();
                break;
            default:
                return std::nullopt;
        }
    }
    if (reader.failed()) return std::nullopt;
    return DeclarativeProgram(bytes);
}

void DeclarativeProgram::run(HttpResponse* response, HttpRequest* request) const {
    Reader reader(bytes_);
    while (!reader.atEnd() && !response->hasResponded()) {
        switch (reader.byte()) {
            case kEnd:
                response->end(reader.longText());
                break;
            case kWriteHeader: {
                std::string_view key = reader.shortText();
                response->writeHeader(key, reader.shortText());
                break;
            }
            case kWriteBody:
                break;
            case kWriteQueryValue:
                response->write(request->getQuery(reader.shortText()));
                break;
            case kWriteHeaderValue:
                response->write(request->getHeader(reader.shortText()));
                break;
            case kWrite:
                response->write(reader.longText());
                break;
            case kWriteParameterValue:
                response->write(request->getParameter(reader.shortText()));
                break;
            case kWriteStatus:
                response->writeStatus(reader.shortText());
                break;
            default:
                return;
        }
    }
}

}  // namespace loopwire::addon
