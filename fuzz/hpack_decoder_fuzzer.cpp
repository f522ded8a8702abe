// Fuzz target for h2::HpackDecoder, with the encoder and the Huffman code as its checks.
//
// Input: byte 0 chooses the table limit (0, 64, 256 or 4096) and the header list limit (64, 512, 4096 or 16384);
// the rest is a series of header blocks, each a length byte and that many bytes, decoded in order by one decoder
// as a connection would. Every field yielded must fit the list limit, every view must stay readable to the end of
// its block (ASan sees a stale one), the table may never exceed its capacity or the capacity its limit, and an error
// ends the connection. Each block's fields, written again by the encoder, must decode to the same fields, and each
// value must survive a Huffman round trip.
#include "h2/HpackDecoder.h"
#include "h2/HpackEncoder.h"
#include "h2/HpackHuffman.h"

#include "FuzzSupport.h"

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

namespace {

using namespace loopwire::h2;

struct Pair {
    std::string name;
    std::string value;
};

std::vector<Pair> decodeAll(HpackDecoder& decoder, std::string_view block, char* scratch, std::size_t listLimit,
                            HpackStatus& status) {
    decoder.begin(block, scratch);
    std::vector<DecodedField> views;
    DecodedField field;
    std::size_t listBytes = 0;
    while ((status = decoder.next(field)) == HpackStatus::Field) {
        listBytes += field.name.size() + field.value.size() + kHpackEntryOverhead;
        FUZZ_CHECK(listBytes <= listLimit);
        views.push_back(field);
    }
    std::vector<Pair> fields;
    if (status == HpackStatus::End && decoder.listTooLarge()) return fields;
    for (const DecodedField& f : views)
        fields.push_back(Pair{std::string(f.name), std::string(f.value)});
    return fields;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    if (size == 0) return 0;
    static constexpr std::uint32_t kTableLimits[] = {0, 64, 256, kDefaultHpackTableLimit};
    static constexpr std::size_t kListLimits[] = {64, 512, 4096, 16384};
    const std::uint32_t tableLimit = kTableLimits[data[0] & 3];
    const std::size_t listLimit = kListLimits[(data[0] >> 2) & 3];

    constexpr std::size_t kAgainListLimit = 1 << 20;
    HpackDecoder decoder(tableLimit, listLimit);
    // Not zeroed, as a connection's scratch is not; the re-reading decoder's, 1 MiB, is made once.
    const std::unique_ptr<char[]> scratch(new char[HpackDecoder::scratchBytesFor(listLimit, tableLimit)]);
    HpackDecoder again(tableLimit, kAgainListLimit);
    static const std::unique_ptr<char[]> againScratch(
        new char[HpackDecoder::scratchBytesFor(kAgainListLimit, kDefaultHpackTableLimit)]);

    for (std::size_t at = 1; at < size;) {
        const std::size_t length = std::min<std::size_t>(data[at], size - at - 1);
        // An exactly sized heap copy, so that a read past the block is caught.
        std::unique_ptr<char[]> block(new char[length + 1]);
        std::memcpy(block.get(), data + at + 1, length);
        at += 1 + length;

        HpackStatus status;
        const std::vector<Pair> fields =
            decodeAll(decoder, std::string_view(block.get(), length), scratch.get(), listLimit, status);
        const HpackDynamicTable& table = decoder.table();
        FUZZ_CHECK(table.size() <= table.capacity() && table.capacity() <= tableLimit);
        FUZZ_CHECK(!describe(status).empty());
        if (status != HpackStatus::End) return 0;  // a COMPRESSION_ERROR ends the connection

        std::string encoded;
        for (const Pair& f : fields) {
            std::string out(fieldBytes(f.name.size(), f.value.size()), '\0');
            out.resize(static_cast<std::size_t>(writeHeaderField(out.data(), f.name, f.value) - out.data()));
            encoded += out;

            std::string huffman(huffmanEncodedLength(f.value), '\0');
            FUZZ_CHECK(huffmanEncode(f.value, huffman.data()) == huffman.data() + huffman.size());
            std::string back(f.value.size(), '\0');
            FUZZ_CHECK(huffmanDecode(huffman, back.data(), back.size()) == f.value.size() && back == f.value);
        }
        HpackStatus againStatus;
        const std::vector<Pair> reread = decodeAll(again, encoded, againScratch.get(), kAgainListLimit, againStatus);
        FUZZ_CHECK(againStatus == HpackStatus::End && reread.size() == fields.size());
        for (std::size_t i = 0; i < fields.size(); ++i) {
            std::string lowerName = fields[i].name;
            for (char& c : lowerName)
                if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
            FUZZ_CHECK(reread[i].name == lowerName && reread[i].value == fields[i].value);
        }
    }
    return 0;
}
