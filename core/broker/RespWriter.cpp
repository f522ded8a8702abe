#include "RespWriter.h"

#include <cstring>

namespace loopwire::resp {

namespace {

// Writes the type byte, value and CRLF of a header line ("*3\r\n", "$5\r\n") at out; returns its length.
std::size_t writeHeaderLine(char* out, char type, std::size_t value) noexcept {
    char digits[20];
    std::size_t count = 0;
    do {
        digits[count++] = static_cast<char>('0' + value % 10);
        value /= 10;
    } while (value != 0);
    out[0] = type;
    for (std::size_t i = 0; i < count; ++i)
        out[1 + i] = digits[count - 1 - i];
    out[1 + count] = '\r';
    out[2 + count] = '\n';
    return count + 3;
}

std::size_t digitCount(std::size_t value) noexcept {
    std::size_t count = 1;
    while (value >= 10) {
        value /= 10;
        ++count;
    }
    return count;
}

constexpr std::size_t kMaxHeaderLineBytes = 23;  // type byte, 20 digits, CRLF

}  // namespace

std::size_t RespWriter::encodedSize(const RespArgument& argument) noexcept {
    return 3 + digitCount(argument.size()) + argument.size() + 2;
}

void RespWriter::appendCommandHeader(ByteBuffer& out, std::size_t count) {
    char* at = out.prepare(kMaxHeaderLineBytes);
    out.commit(writeHeaderLine(at, '*', count));
}

void RespWriter::appendArgument(ByteBuffer& out, const RespArgument& argument) {
    char* at = out.prepare(kMaxHeaderLineBytes + argument.size() + 2);
    std::size_t written = writeHeaderLine(at, '$', argument.size());
    for (std::string_view piece : {argument.first, argument.second, argument.third}) {
        if (!piece.empty()) std::memcpy(at + written, piece.data(), piece.size());
        written += piece.size();
    }
    at[written++] = '\r';
    at[written++] = '\n';
    out.commit(written);
}

void RespWriter::appendCommand(ByteBuffer& out, std::initializer_list<RespArgument> arguments) {
    appendCommandHeader(out, arguments.size());
    for (const RespArgument& argument : arguments)
        appendArgument(out, argument);
}

}  // namespace loopwire::resp
