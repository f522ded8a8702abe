# h2spec's "hpack" section (RFC 7541): header blocks a decoder must refuse, each a connection error of type
# COMPRESSION_ERROR (RFC 9113 §4.3): indexes past the tables, a table size update out of place or too large, bad
# Huffman padding, the EOS symbol, index 0.
import expect
import frames
import hpackwire
from case import registrar
from frames import COMPRESSION_ERROR, HEADER_TABLE_SIZE

CASES = []
case = registrar(CASES)

DEFAULT_HEADER_TABLE_SIZE = 4096


def _send_request(conn, before=b"", after=b""):
    """A GET whose header block is the usual fields with `before` and `after` around them."""
    conn.send(frames.headers(1, before + conn.request_block() + after))
    return expect.connection_error(conn, COMPRESSION_ERROR)


def _first_invalid_index(conn):
    """The smallest index past both tables, once the request fields are encoded (they may add dynamic entries)."""
    return hpackwire.STATIC_TABLE_LENGTH + len(conn.encoder.header_table.dynamic_entries) + 1


def _x_test(value_octets):
    """A literal field without indexing, new name x-test, whose value is the given (Huffman) octets."""
    return (hpackwire.integer(0, 4, 0x00) + hpackwire.string(b"x-test", use_huffman=True)
            + hpackwire.raw_string(value_octets))


# --- 2.3.3. Index address space ----------------------------------------------------------------------------------

@case("hpack/2.3.3/1", "RFC 7541 §2.3.3", "Sends an indexed field with an index past both tables: COMPRESSION_ERROR")
def _(conn):
    block = conn.request_block()
    conn.send(frames.headers(1, block + hpackwire.indexed(_first_invalid_index(conn))))
    return expect.connection_error(conn, COMPRESSION_ERROR)


@case("hpack/2.3.3/2", "RFC 7541 §2.3.3",
      "Sends a literal field whose name index is past both tables: COMPRESSION_ERROR")
def _(conn):
    block = conn.request_block()
    invalid = hpackwire.literal(hpackwire.WITH_INDEXING, _first_invalid_index(conn), b"")
    conn.send(frames.headers(1, block + invalid))
    return expect.connection_error(conn, COMPRESSION_ERROR)


# --- 4.2. Maximum table size -------------------------------------------------------------------------------------

@case("hpack/4.2/1", "RFC 7541 §4.2",
      "Sends a dynamic table size update at the end of a header block: COMPRESSION_ERROR")
def _(conn):
    return _send_request(conn, after=hpackwire.table_size_update(1))


# --- 5.2. String literal representation --------------------------------------------------------------------------

@case("hpack/5.2/1", "RFC 7541 §5.2",
      "Sends a Huffman-coded string with padding longer than 7 bits: COMPRESSION_ERROR")
def _(conn):
    return _send_request(conn, after=_x_test(hpackwire.huffman(b"h2spec", extra_padding_bytes=1)))


@case("hpack/5.2/2", "RFC 7541 §5.2",
      "Sends a Huffman-coded string padded with zero bits (not the EOS prefix): COMPRESSION_ERROR")
def _(conn):
    value = b"test"
    assert hpackwire.huffman_bits(value)[1] % 8, "the value must need padding"
    return _send_request(conn, after=_x_test(hpackwire.huffman(value, pad_bit=0)))


@case("hpack/5.2/3", "RFC 7541 §5.2", "Sends a Huffman-coded string containing the EOS symbol: COMPRESSION_ERROR")
def _(conn):
    return _send_request(conn, after=_x_test(hpackwire.huffman(list(b"h2") + [hpackwire.EOS] + list(b"spec"))))


# --- 6.1. Indexed header field representation --------------------------------------------------------------------

@case("hpack/6.1/1", "RFC 7541 §6.1", "Sends an indexed field with index 0: COMPRESSION_ERROR")
def _(conn):
    return _send_request(conn, after=hpackwire.indexed(0))


# --- 6.3. Dynamic table size update ------------------------------------------------------------------------------

@case("hpack/6.3/1", "RFC 7541 §6.3",
      "Sends a dynamic table size update larger than SETTINGS_HEADER_TABLE_SIZE: COMPRESSION_ERROR")
def _(conn):
    limit = conn.server_settings.get(HEADER_TABLE_SIZE, DEFAULT_HEADER_TABLE_SIZE)
    return _send_request(conn, before=hpackwire.table_size_update(limit + 1))
