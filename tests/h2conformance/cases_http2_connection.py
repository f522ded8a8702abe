# h2spec's "http2" cases for RFC 9113 §3 to §5: the connection preface, the frame format and size, header blocks,
# stream states and identifiers, concurrency, priority self-dependency, connection errors and extensions.
import expect
import frames
from case import registrar
from frames import (CANCEL, COMPRESSION_ERROR, FRAME_SIZE_ERROR, INITIAL_WINDOW_SIZE, PING, PROTOCOL_ERROR,
                    REFUSED_STREAM, STREAM_CLOSED, UNKNOWN_TYPE)

CASES = []
case = registrar(CASES)

# h2spec's filler field: long enough that five of them overflow a 16,384-octet frame.
DUMMY_VALUE_LENGTH = 4000


def dummy_block(conn, count=1):
    """An HPACK block of `count` fields x-dummyN with 4,000-octet values, from the connection's encoder."""
    return conn.encode([(f"x-dummy{i}", "x" * DUMMY_VALUE_LENGTH) for i in range(count)])


def unknown_frame():
    return frames.raw(UNKNOWN_TYPE, 0, 0, bytes(8))


# --- 3.5. HTTP/2 connection preface ------------------------------------------------------------------------------

@case("http2/3.5/1", "RFC 9113 §3.4", "Sends the client connection preface: answered with SETTINGS", handshake=False)
def _(conn):
    conn.send(frames.PREFACE, frames.settings((INITIAL_WINDOW_SIZE, 65535)))
    return expect.server_preface(conn)


@case("http2/3.5/2", "RFC 9113 §3.4", "Sends an invalid connection preface: the connection is closed (a GOAWAY, if "
      "any, says PROTOCOL_ERROR; our cleartext port answers it as HTTP/1.1 with 400 and closes)", handshake=False)
def _(conn):
    conn.send(b"INVALID CONNECTION PREFACE\r\n\r\n")
    return expect.closed_after_invalid_preface(conn)


# --- 4.1. Frame format -------------------------------------------------------------------------------------------

@case("http2/4.1/1", "RFC 9113 §4.1", "Sends a frame of unknown type: ignored")
def _(conn):
    conn.send(unknown_frame(), frames.ping())
    return expect.ping_ack(conn)


@case("http2/4.1/2", "RFC 9113 §4.1", "Sends a PING frame with undefined flags (0x16): the flags are ignored")
def _(conn):
    conn.send(frames.raw(PING, 0x16, 0, bytes(8)))
    return expect.ping_ack(conn)


@case("http2/4.1/3", "RFC 9113 §4.1", "Sends a PING frame with the reserved bit of the stream identifier set: ignored")
def _(conn):
    conn.send(frames.raw(PING, 0, 0x80000000, bytes(8)))
    return expect.ping_ack(conn)


# --- 4.2. Frame size ---------------------------------------------------------------------------------------------

def _max_frame_size(conn):
    return conn.server_settings.get(frames.MAX_FRAME_SIZE, frames.DEFAULT_MAX_FRAME_SIZE)


@case("http2/4.2/1", "RFC 9113 §4.2", "Sends a DATA frame of exactly SETTINGS_MAX_FRAME_SIZE octets: accepted")
def _(conn):
    conn.send(frames.headers(1, conn.request_block("POST"), end_stream=False),
              frames.data(1, b"x" * _max_frame_size(conn)))
    return expect.response_headers(conn, 1)


@case("http2/4.2/2", "RFC 9113 §4.2", "Sends a DATA frame larger than SETTINGS_MAX_FRAME_SIZE: FRAME_SIZE_ERROR")
def _(conn):
    conn.send(frames.headers(1, conn.request_block("POST"), end_stream=False),
              frames.data(1, b"x" * (_max_frame_size(conn) + 1)))
    return expect.stream_error(conn, 1, FRAME_SIZE_ERROR)


@case("http2/4.2/3", "RFC 9113 §4.2",
      "Sends a HEADERS frame larger than SETTINGS_MAX_FRAME_SIZE: connection error FRAME_SIZE_ERROR")
def _(conn):
    block = conn.encode(conn.request_fields() + [(f"x-dummy{i}", "x" * DUMMY_VALUE_LENGTH) for i in range(5)])
    assert len(block) > _max_frame_size(conn)
    conn.send(frames.headers(1, block))
    return expect.connection_error(conn, FRAME_SIZE_ERROR)


# --- 4.3. Header compression and decompression -------------------------------------------------------------------

@case("http2/4.3/1", "RFC 9113 §4.3", "Sends an undecodable header block (a truncated literal): COMPRESSION_ERROR")
def _(conn):
    conn.send(frames.headers(1, b"\x40"))
    return expect.connection_error(conn, COMPRESSION_ERROR)


@case("http2/4.3/2", "RFC 9113 §4.3", "Sends a PRIORITY frame in the middle of a header block: PROTOCOL_ERROR")
def _(conn):
    conn.send(frames.headers(1, conn.request_block(), end_stream=False, end_headers=False), frames.priority(1),
              frames.continuation(1, dummy_block(conn)))
    return expect.connection_error(conn, PROTOCOL_ERROR)


@case("http2/4.3/3", "RFC 9113 §4.3",
      "Sends a HEADERS frame for another stream in the middle of a header block: PROTOCOL_ERROR")
def _(conn):
    conn.send(frames.headers(1, conn.request_block(), end_stream=False, end_headers=False),
              frames.headers(3, conn.request_block()), frames.continuation(1, dummy_block(conn)))
    return expect.connection_error(conn, PROTOCOL_ERROR)


# --- 5.1. Stream states ------------------------------------------------------------------------------------------

@case("http2/5.1/1", "RFC 9113 §5.1", "idle: Sends a DATA frame: PROTOCOL_ERROR (or STREAM_CLOSED)")
def _(conn):
    conn.send(frames.data(1, b"test"))
    return expect.stream_error(conn, 1, PROTOCOL_ERROR, STREAM_CLOSED)


@case("http2/5.1/2", "RFC 9113 §5.1", "idle: Sends a RST_STREAM frame: connection error PROTOCOL_ERROR")
def _(conn):
    conn.send(frames.rst_stream(1, CANCEL))
    return expect.connection_error(conn, PROTOCOL_ERROR)


@case("http2/5.1/3", "RFC 9113 §5.1", "idle: Sends a WINDOW_UPDATE frame: connection error PROTOCOL_ERROR")
def _(conn):
    conn.send(frames.window_update(1, 100))
    return expect.connection_error(conn, PROTOCOL_ERROR)


@case("http2/5.1/4", "RFC 9113 §5.1", "idle: Sends a CONTINUATION frame: connection error PROTOCOL_ERROR")
def _(conn):
    conn.send(frames.continuation(1, conn.request_block()))
    return expect.connection_error(conn, PROTOCOL_ERROR)


def _get(conn, stream_id=1, end_stream=True):
    conn.send(frames.headers(stream_id, conn.request_block(), end_stream=end_stream))


@case("http2/5.1/5", "RFC 9113 §5.1", "half closed (remote): Sends a DATA frame: STREAM_CLOSED")
def _(conn):
    _get(conn)
    conn.send(frames.data(1, b"test"))
    return expect.stream_error(conn, 1, STREAM_CLOSED)


@case("http2/5.1/6", "RFC 9113 §5.1", "half closed (remote): Sends a HEADERS frame: STREAM_CLOSED")
def _(conn):
    _get(conn)
    _get(conn)
    return expect.stream_error(conn, 1, STREAM_CLOSED)


@case("http2/5.1/7", "RFC 9113 §5.1",
      "half closed (remote): Sends a CONTINUATION frame: STREAM_CLOSED or PROTOCOL_ERROR")
def _(conn):
    _get(conn)
    conn.send(frames.continuation(1, conn.request_block()))
    return expect.stream_error(conn, 1, STREAM_CLOSED, PROTOCOL_ERROR)


def _reset_stream_1(conn):
    """Opens stream 1 (request not finished) and resets it from our side: the stream is closed."""
    _get(conn, end_stream=False)
    conn.send(frames.rst_stream(1, CANCEL))


@case("http2/5.1/8", "RFC 9113 §5.1", "closed: Sends a DATA frame after sending RST_STREAM: STREAM_CLOSED")
def _(conn):
    _reset_stream_1(conn)
    conn.send(frames.data(1, b"test"))
    return expect.stream_error(conn, 1, STREAM_CLOSED)


@case("http2/5.1/9", "RFC 9113 §5.1", "closed: Sends a HEADERS frame after sending RST_STREAM: STREAM_CLOSED")
def _(conn):
    _reset_stream_1(conn)
    _get(conn)
    return expect.stream_error(conn, 1, STREAM_CLOSED)


@case("http2/5.1/10", "RFC 9113 §5.1",
      "closed: Sends a CONTINUATION frame after sending RST_STREAM: STREAM_CLOSED or PROTOCOL_ERROR")
def _(conn):
    _reset_stream_1(conn)
    conn.send(frames.continuation(1, dummy_block(conn)))
    return expect.stream_error(conn, 1, STREAM_CLOSED, PROTOCOL_ERROR)


def _finished_stream_1(conn):
    """A GET on stream 1 whose response has ended: the stream is closed."""
    _get(conn)
    expect.step(expect.stream_end(conn, 1))


@case("http2/5.1/11", "RFC 9113 §5.1", "closed: Sends a DATA frame: STREAM_CLOSED")
def _(conn):
    _finished_stream_1(conn)
    conn.send(frames.data(1, b"test"))
    return expect.stream_error(conn, 1, STREAM_CLOSED)


@case("http2/5.1/12", "RFC 9113 §5.1, §5.1.1",
      "closed: Sends a HEADERS frame: connection error STREAM_CLOSED (§5.1) or PROTOCOL_ERROR (a reused identifier, "
      "§5.1.1)")
def _(conn):
    _finished_stream_1(conn)
    _get(conn)
    return expect.connection_error(conn, STREAM_CLOSED, PROTOCOL_ERROR)


@case("http2/5.1/13", "RFC 9113 §5.1",
      "closed: Sends a CONTINUATION frame: connection error STREAM_CLOSED or PROTOCOL_ERROR")
def _(conn):
    _finished_stream_1(conn)
    conn.send(frames.continuation(1, dummy_block(conn)))
    return expect.connection_error(conn, STREAM_CLOSED, PROTOCOL_ERROR)


# --- 5.1.1. Stream identifiers -----------------------------------------------------------------------------------

@case("http2/5.1.1/1", "RFC 9113 §5.1.1", "Sends an even-numbered stream identifier: connection error PROTOCOL_ERROR")
def _(conn):
    _get(conn, stream_id=2)
    return expect.connection_error(conn, PROTOCOL_ERROR)


@case("http2/5.1.1/2", "RFC 9113 §5.1.1, §5.1",
      "Sends a stream identifier numerically smaller than the previous one: connection error PROTOCOL_ERROR "
      "(§5.1.1), or STREAM_CLOSED (opening 5 closed idle stream 3, §5.1)")
def _(conn):
    # Two rules meet here: §5.1.1 asks PROTOCOL_ERROR for an unexpected identifier, and §5.1 lets a frame on a
    # closed stream be a connection error STREAM_CLOSED. Servers differ (h2o and ours send STREAM_CLOSED).
    _get(conn, stream_id=5)
    _get(conn, stream_id=3)
    return expect.connection_error(conn, PROTOCOL_ERROR, STREAM_CLOSED)


# --- 5.1.2. Stream concurrency -----------------------------------------------------------------------------------

@case("http2/5.1.2/1", "RFC 9113 §5.1.2",
      "Opens one stream more than SETTINGS_MAX_CONCURRENT_STREAMS: that stream gets PROTOCOL_ERROR or REFUSED_STREAM")
def _(conn):
    limit = conn.server_settings.get(frames.MAX_CONCURRENT_STREAMS)
    if limit is None:
        return expect.Verdict(False, "the server to advertise SETTINGS_MAX_CONCURRENT_STREAMS")
    # A zero window keeps every response (its body) pending, so the streams stay open.
    conn.send(frames.settings((INITIAL_WINDOW_SIZE, 0)))
    block = conn.request_block()
    conn.send(*(frames.headers(1 + 2 * i, block) for i in range(limit + 1)))
    return expect.stream_error(conn, 1 + 2 * limit, PROTOCOL_ERROR, REFUSED_STREAM)


# --- 5.3.1. Stream dependencies (RFC 7540 priority; RFC 9113 §5.3 deprecates the scheme, the server still checks) -

@case("http2/5.3.1/1", "RFC 7540 §5.3.1", "Sends a HEADERS frame that depends on itself: PROTOCOL_ERROR")
def _(conn):
    conn.send(frames.headers(1, conn.request_block(), depends_on=1, weight=255))
    return expect.stream_error(conn, 1, PROTOCOL_ERROR)


@case("http2/5.3.1/2", "RFC 7540 §5.3.1", "Sends a PRIORITY frame that depends on itself: PROTOCOL_ERROR")
def _(conn):
    conn.send(frames.priority(1, depends_on=1, weight=255))
    return expect.stream_error(conn, 1, PROTOCOL_ERROR)


# --- 5.4.1. Connection error handling ----------------------------------------------------------------------------

@case("http2/5.4.1/1", "RFC 9113 §5.4.1", "Sends an invalid PING frame (on stream 3): the connection is closed")
def _(conn):
    conn.send(frames.raw(PING, 0, 3, bytes(8)))
    return expect.closed(conn)


# --- 5.5. Extending HTTP/2 ---------------------------------------------------------------------------------------

@case("http2/5.5/1", "RFC 9113 §5.5", "Sends an unknown extension frame: ignored")
def _(conn):
    conn.send(unknown_frame(), frames.ping())
    return expect.ping_ack(conn)


@case("http2/5.5/2", "RFC 9113 §5.5",
      "Sends an unknown extension frame in the middle of a header block: connection error PROTOCOL_ERROR")
def _(conn):
    conn.send(frames.headers(1, conn.request_block(), end_headers=False), unknown_frame())
    return expect.connection_error(conn, PROTOCOL_ERROR)
