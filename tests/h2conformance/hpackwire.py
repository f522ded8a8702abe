# HPACK (RFC 7541) representations byte by byte, for the cases that must choose the representation themselves or
# send one that is invalid: integers (§5.1), string literals with or without Huffman coding and with chosen padding
# (§5.2), the indexed and literal field representations (§6.1, §6.2) and the table size update (§6.3). The Huffman
# code table is hpack's.
from hpack.huffman_constants import REQUEST_CODES, REQUEST_CODES_LENGTH

EOS = 256

# The first-byte pattern and prefix length of each literal field representation (§6.2).
WITH_INDEXING = (0x40, 6)
WITHOUT_INDEXING = (0x00, 4)
NEVER_INDEXED = (0x10, 4)

# Static table indexes the cases use (Appendix A).
STATIC_ACCEPT_ENCODING_GZIP = 16
STATIC_USER_AGENT = 58
STATIC_TABLE_LENGTH = 61


def integer(value, prefix_bits, first_byte=0):
    """`value` with an N-bit prefix, ORed into `first_byte` (§5.1)."""
    limit = (1 << prefix_bits) - 1
    if value < limit:
        return bytes([first_byte | value])
    out = [first_byte | limit]
    value -= limit
    while value >= 128:
        out.append(0x80 | (value & 0x7F))
        value >>= 7
    out.append(value)
    return bytes(out)


def huffman_bits(symbols):
    """The Huffman code of the symbols (byte values, or EOS) as (an integer of the bits, the number of bits)."""
    bits = count = 0
    for symbol in symbols:
        bits = (bits << REQUEST_CODES_LENGTH[symbol]) | REQUEST_CODES[symbol]
        count += REQUEST_CODES_LENGTH[symbol]
    return bits, count


def huffman(symbols, pad_bit=1, extra_padding_bytes=0):
    """Huffman-coded octets, padded to the octet with `pad_bit` (1 is the EOS prefix §5.2 requires) and then
    `extra_padding_bytes` whole octets of padding (any of which makes the padding longer than 7 bits)."""
    bits, count = huffman_bits(symbols)
    padding = (-count) % 8 + 8 * extra_padding_bytes
    bits = (bits << padding) | (((1 << padding) - 1) if pad_bit else 0)
    count += padding
    return bits.to_bytes(count // 8, "big")


def string(value, use_huffman=False):
    """A string literal (§5.2): length with the H bit, then the octets."""
    if use_huffman:
        encoded = huffman(value)
        return integer(len(encoded), 7, 0x80) + encoded
    return integer(len(value), 7) + value


def raw_string(encoded, use_huffman=True):
    """A string literal of already-coded octets (which may be invalid Huffman code)."""
    return integer(len(encoded), 7, 0x80 if use_huffman else 0) + encoded


def indexed(index):
    """An indexed header field (§6.1)."""
    return integer(index, 7, 0x80)


def literal(kind, name, value, use_huffman=False):
    """A literal header field (§6.2) of `kind` (WITH_INDEXING, ...): `name` an index into the tables or the octets
    of a new name; `value` octets."""
    pattern, prefix_bits = kind
    if isinstance(name, int):
        return integer(name, prefix_bits, pattern) + string(value, use_huffman)
    return integer(0, prefix_bits, pattern) + string(name, use_huffman) + string(value, use_huffman)


def table_size_update(size):
    """A dynamic table size update (§6.3)."""
    return integer(size, 5, 0x20)
