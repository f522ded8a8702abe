# h2spec's "generic" section: what every HTTP/2 server must accept. Each case sends a well-formed use of one
# frame type or HPACK representation and expects the server to go on normally (a response, an ACK).
import expect
import frames
import hpackwire
from case import registrar
from frames import CANCEL, INITIAL_WINDOW_SIZE, NO_ERROR

CASES = []
case = registrar(CASES)

H2SPEC = b"h2spec\x00\x00"


def _get(conn, stream_id=1, end_stream=True):
    conn.send(frames.headers(stream_id, conn.request_block(), end_stream=end_stream))


def _post(conn, *bodies, stream_id=1, pad_length=None):
    """A POST whose body is sent as one DATA frame per element of `bodies`, the last one ending the stream."""
    conn.send(frames.headers(stream_id, conn.request_block("POST"), end_stream=False))
    for i, body in enumerate(bodies):
        conn.send(frames.data(stream_id, body, end_stream=i == len(bodies) - 1, pad_length=pad_length))


# --- 1. Starting HTTP/2 ------------------------------------------------------------------------------------------

@case("generic/1/1", "RFC 9113 §3.4", "Sends a client connection preface: the server's first frame is SETTINGS",
      handshake=False)
def _(conn):
    conn.send(frames.PREFACE, frames.settings((INITIAL_WINDOW_SIZE, 65535)))
    return expect.server_preface(conn)


# --- 2. Streams and multiplexing ---------------------------------------------------------------------------------

@case("generic/2/1", "RFC 9113 §5.1", "Sends a PRIORITY frame on an idle stream: accepted")
def _(conn):
    conn.send(frames.priority(1, weight=255), frames.ping())
    return expect.ping_ack(conn)


def _half_closed_then(conn, *frames_after):
    """A GET on stream 1 with our initial window at 0, so the response stays pending on a half-closed (remote)
    stream; then `frames_after` and a 1-byte WINDOW_UPDATE: the server must send exactly one byte of body."""
    conn.send(frames.settings((INITIAL_WINDOW_SIZE, 0)))
    _get(conn)
    conn.send(*frames_after, frames.window_update(1, 1))
    return expect.data_frame(conn, 1, length=1)


@case("generic/2/2", "RFC 9113 §5.1", "Sends a WINDOW_UPDATE frame on a half-closed (remote) stream: accepted")
def _(conn):
    return _half_closed_then(conn)


@case("generic/2/3", "RFC 9113 §5.1", "Sends a PRIORITY frame on a half-closed (remote) stream: accepted")
def _(conn):
    return _half_closed_then(conn, frames.priority(1, weight=255))


@case("generic/2/4", "RFC 9113 §5.1", "Sends a RST_STREAM frame on a half-closed (remote) stream: accepted")
def _(conn):
    _get(conn)
    conn.send(frames.rst_stream(1, CANCEL), frames.ping())
    return expect.ping_ack(conn)


@case("generic/2/5", "RFC 9113 §5.1", "Sends a PRIORITY frame on a closed stream: accepted")
def _(conn):
    _get(conn)
    expect.step(expect.stream_end(conn, 1))
    conn.send(frames.priority(1, weight=255), frames.ping())
    return expect.ping_ack(conn)


# --- 3. Frame definitions ----------------------------------------------------------------------------------------

@case("generic/3.1/1", "RFC 9113 §6.1", "Sends a DATA frame")
def _(conn):
    _post(conn, b"test")
    return expect.response_headers(conn, 1)


@case("generic/3.1/2", "RFC 9113 §6.1", "Sends multiple DATA frames")
def _(conn):
    _post(conn, b"test", b"test")
    return expect.response_headers(conn, 1)


@case("generic/3.1/3", "RFC 9113 §6.1", "Sends a DATA frame with padding")
def _(conn):
    _post(conn, b"test", pad_length=5)
    return expect.response_headers(conn, 1)


@case("generic/3.2/1", "RFC 9113 §6.2", "Sends a HEADERS frame")
def _(conn):
    _get(conn)
    return expect.response_headers(conn, 1)


@case("generic/3.2/2", "RFC 9113 §6.2", "Sends a HEADERS frame with padding")
def _(conn):
    conn.send(frames.headers(1, conn.request_block(), pad_length=8))
    return expect.response_headers(conn, 1)


@case("generic/3.2/3", "RFC 9113 §6.2", "Sends a HEADERS frame with priority")
def _(conn):
    conn.send(frames.headers(1, conn.request_block(), depends_on=0, weight=255))
    return expect.response_headers(conn, 1)


def _priority_then_get(conn, priority_frame):
    conn.send(priority_frame)
    _get(conn)
    return expect.response_headers(conn, 1)


@case("generic/3.3/1", "RFC 9113 §6.3", "Sends a PRIORITY frame with priority 1 (weight octet 0)")
def _(conn):
    return _priority_then_get(conn, frames.priority(1, weight=0))


@case("generic/3.3/2", "RFC 9113 §6.3", "Sends a PRIORITY frame with priority 256 (weight octet 255)")
def _(conn):
    return _priority_then_get(conn, frames.priority(1, weight=255))


@case("generic/3.3/3", "RFC 9113 §6.3", "Sends a PRIORITY frame with a stream dependency")
def _(conn):
    return _priority_then_get(conn, frames.priority(3, depends_on=1, weight=0))


@case("generic/3.3/4", "RFC 9113 §6.3", "Sends a PRIORITY frame with the exclusive bit")
def _(conn):
    return _priority_then_get(conn, frames.priority(1, exclusive=True, weight=0))


@case("generic/3.3/5", "RFC 9113 §6.3",
      "Sends a PRIORITY frame for idle stream 3, then a HEADERS frame for stream 1: PRIORITY opens no stream")
def _(conn):
    return _priority_then_get(conn, frames.priority(3, weight=255))


@case("generic/3.4/1", "RFC 9113 §6.4", "Sends a RST_STREAM frame: the connection goes on")
def _(conn):
    _get(conn, end_stream=False)
    conn.send(frames.rst_stream(1, CANCEL), frames.ping())
    return expect.ping_ack(conn)


@case("generic/3.5/1", "RFC 9113 §6.5", "Sends a SETTINGS frame with every defined parameter: acknowledged")
def _(conn):
    conn.send(frames.settings((frames.HEADER_TABLE_SIZE, 4096), (frames.ENABLE_PUSH, 1),
                              (frames.MAX_CONCURRENT_STREAMS, 100), (INITIAL_WINDOW_SIZE, 65535),
                              (frames.MAX_FRAME_SIZE, 16384), (frames.MAX_HEADER_LIST_SIZE, 100)))
    return expect.settings_ack(conn)


@case("generic/3.7/1", "RFC 9113 §6.7", "Sends a PING frame: answered with the same payload")
def _(conn):
    conn.send(frames.ping(H2SPEC))
    return expect.ping_ack(conn, H2SPEC)


@case("generic/3.8/1", "RFC 9113 §6.8", "Sends a GOAWAY frame: the server answers a PING or closes")
def _(conn):
    conn.send(frames.goaway(0, NO_ERROR, b"h2spec"), frames.ping(H2SPEC))
    return expect.ping_ack(conn, H2SPEC, or_closed=True)


@case("generic/3.9/1", "RFC 9113 §6.9", "Sends a WINDOW_UPDATE frame on stream 0")
def _(conn):
    conn.send(frames.window_update(0, 1), frames.ping())
    return expect.ping_ack(conn)


@case("generic/3.9/2", "RFC 9113 §6.9", "Sends a WINDOW_UPDATE frame on stream 1")
def _(conn):
    _get(conn)
    conn.send(frames.window_update(1, 1))
    return expect.response_headers(conn, 1)


@case("generic/3.10/1", "RFC 9113 §6.10", "Sends a CONTINUATION frame")
def _(conn):
    block = conn.request_block()
    conn.send(frames.headers(1, block[:5], end_headers=False), frames.continuation(1, block[5:]))
    return expect.response_headers(conn, 1)


@case("generic/3.10/2", "RFC 9113 §6.10", "Sends multiple CONTINUATION frames")
def _(conn):
    block = conn.request_block()
    conn.send(frames.headers(1, block[:5], end_headers=False), frames.continuation(1, block[5:10], end_headers=False),
              frames.continuation(1, block[10:]))
    return expect.response_headers(conn, 1)


# --- 4. HTTP message exchanges -----------------------------------------------------------------------------------

@case("generic/4/1", "RFC 9113 §8.1", "Sends a GET request")
def _(conn):
    _get(conn)
    return expect.response_headers(conn, 1)


@case("generic/4/2", "RFC 9113 §8.1", "Sends a HEAD request")
def _(conn):
    conn.send(frames.headers(1, conn.request_block("HEAD")))
    return expect.response_headers(conn, 1)


@case("generic/4/3", "RFC 9113 §8.1", "Sends a POST request")
def _(conn):
    _post(conn, b"test")
    return expect.response_headers(conn, 1)


@case("generic/4/4", "RFC 9113 §8.1", "Sends a POST request with trailers")
def _(conn):
    conn.send(frames.headers(1, conn.request_block("POST", extra=[("trailer", "x-test")]), end_stream=False),
              frames.data(1, b"test", end_stream=False),
              frames.headers(1, conn.encode([("x-test", "ok")])))
    return expect.response_headers(conn, 1)


# --- 5. HPACK ----------------------------------------------------------------------------------------------------

def _get_with(representation):
    """A GET whose header block ends with one more field in the given HPACK representation."""
    def run(conn):
        conn.send(frames.headers(1, conn.request_block() + representation))
        return expect.response_headers(conn, 1)
    return run


_UA = hpackwire.STATIC_USER_AGENT
_KINDS = [("with incremental indexing", hpackwire.WITH_INDEXING),
          ("without indexing", hpackwire.WITHOUT_INDEXING),
          ("never indexed", hpackwire.NEVER_INDEXED)]

case("generic/5/1", "RFC 7541 §6.1", "Sends an indexed header field representation")(
    _get_with(hpackwire.indexed(hpackwire.STATIC_ACCEPT_ENCODING_GZIP)))

_number = 2
for _label, _kind in _KINDS:
    for _name_label, _name in (("indexed name", _UA), ("new name", b"x-test")):
        for _huffman in (False, True):
            _coding = " (Huffman coded)" if _huffman else ""
            _description = f"Sends a literal header field {_label} - {_name_label}{_coding}"
            case(f"generic/5/{_number}", "RFC 7541 §6.2", _description)(
                _get_with(hpackwire.literal(_kind, _name, b"h2spec", _huffman)))
            _number += 1


@case("generic/5/14", "RFC 7541 §6.3", "Sends a dynamic table size update")
def _(conn):
    conn.encoder.header_table_size = 128
    _get(conn)
    return expect.response_headers(conn, 1)


@case("generic/5/15", "RFC 7541 §4.2", "Sends two dynamic table size updates (128, then 4096) in one block")
def _(conn):
    updates = hpackwire.table_size_update(128) + hpackwire.table_size_update(4096)
    conn.send(frames.headers(1, updates + conn.request_block()))
    return expect.response_headers(conn, 1)
