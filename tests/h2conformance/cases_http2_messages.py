# h2spec's "http2" cases for RFC 9113 §7 and §8: unknown error codes, and malformed requests (trailers without
# END_STREAM, uppercase or connection-specific fields, pseudo-header fields missing, repeated, unknown or misplaced,
# a content-length the body contradicts) and a client's PUSH_PROMISE.
import expect
import frames
import hpackwire
from case import registrar
from connection import Connection
from frames import PROTOCOL_ERROR, UNDEFINED_ERROR_CODE

CASES = []
case = registrar(CASES)

H2SPEC = b"h2spec\x00\x00"


# --- 7. Error codes ----------------------------------------------------------------------------------------------

@case("http2/7/1", "RFC 9113 §7", "Sends a GOAWAY frame with an unknown error code: no special behaviour")
def _(conn):
    conn.send(frames.goaway(0, UNDEFINED_ERROR_CODE), frames.ping(H2SPEC))
    return expect.ping_ack(conn, H2SPEC, or_closed=True)


@case("http2/7/2", "RFC 9113 §7", "Sends a RST_STREAM frame with an unknown error code: the connection goes on")
def _(conn):
    conn.send(frames.headers(1, conn.request_block("POST"), end_stream=False),
              frames.rst_stream(1, UNDEFINED_ERROR_CODE), frames.ping())
    return expect.ping_ack(conn)


# --- 8.1. HTTP request/response exchange -------------------------------------------------------------------------

def _post_with_trailers(conn, trailer_fields, trailers_end_stream):
    conn.send(frames.headers(1, conn.request_block("POST"), end_stream=False),
              frames.data(1, b"test", end_stream=False),
              frames.headers(1, conn.encode(trailer_fields), end_stream=trailers_end_stream))


@case("http2/8.1/1", "RFC 9113 §8.1", "Sends a second HEADERS frame (trailers) without END_STREAM: PROTOCOL_ERROR")
def _(conn):
    _post_with_trailers(conn, [("x-test", "ok")], trailers_end_stream=False)
    return expect.stream_error(conn, 1, PROTOCOL_ERROR)


def _malformed_get(fields):
    """A case sending a GET whose header list is `fields(conn)`: the request is malformed, a stream error."""
    def run(conn):
        conn.send(frames.headers(1, conn.encode(fields(conn))))
        return expect.stream_error(conn, 1, PROTOCOL_ERROR)
    return run


def _request_with(*extra):
    return lambda conn: conn.request_fields() + list(extra)


def _request_without(name):
    return lambda conn: [field for field in conn.request_fields() if field[0] != name]


def _request_doubling(name):
    return lambda conn: conn.request_fields() + [field for field in conn.request_fields() if field[0] == name]


# --- 8.1.2. HTTP header fields -----------------------------------------------------------------------------------

def _uppercase_name(conn, use_huffman):
    field = hpackwire.literal(hpackwire.WITHOUT_INDEXING, b"X-TEST", b"ok", use_huffman)
    conn.send(frames.headers(1, conn.request_block() + field))
    return expect.stream_error(conn, 1, PROTOCOL_ERROR)


@case("http2/8.1.2/1", "RFC 9113 §8.2",
      "Sends a field name in uppercase letters, as a plain and (on a second connection) as a Huffman-coded literal: "
      "PROTOCOL_ERROR each time")
def _(conn):
    # Both codings, since a decoder may check names on one path only (h2o 2.2.5 accepts the Huffman-coded one).
    verdict = _uppercase_name(conn, use_huffman=False)
    if not verdict.passed:
        return verdict
    second = Connection(conn.target)
    try:
        second.handshake()
        verdict = _uppercase_name(second, use_huffman=True)
    finally:
        second.close()
        conn.received += ["(second connection)"] + second.received
    return verdict


# --- 8.1.2.1. Pseudo-header fields -------------------------------------------------------------------------------

case("http2/8.1.2.1/1", "RFC 9113 §8.3", "Sends an unknown pseudo-header field (:test): PROTOCOL_ERROR")(
    _malformed_get(_request_with((":test", "ok"))))

case("http2/8.1.2.1/2", "RFC 9113 §8.3",
     "Sends the response pseudo-header field :status in a request: PROTOCOL_ERROR")(
    _malformed_get(_request_with((":status", "200"))))


@case("http2/8.1.2.1/3", "RFC 9113 §8.1", "Sends a pseudo-header field (:method) in trailers: PROTOCOL_ERROR")
def _(conn):
    _post_with_trailers(conn, [(":method", "POST")], trailers_end_stream=True)
    return expect.stream_error(conn, 1, PROTOCOL_ERROR)


case("http2/8.1.2.1/4", "RFC 9113 §8.3", "Sends a pseudo-header field after a regular field: PROTOCOL_ERROR")(
    _malformed_get(lambda conn: [("x-test", "ok")] + conn.request_fields()))

# --- 8.1.2.2. Connection-specific header fields ------------------------------------------------------------------

case("http2/8.1.2.2/1", "RFC 9113 §8.2.2", "Sends the connection-specific field connection: PROTOCOL_ERROR")(
    _malformed_get(_request_with(("connection", "keep-alive"))))

case("http2/8.1.2.2/2", "RFC 9113 §8.2.2", "Sends TE with a value other than \"trailers\": PROTOCOL_ERROR")(
    _malformed_get(_request_with(("te", "trailers, deflate"))))

# --- 8.1.2.3. Request pseudo-header fields -----------------------------------------------------------------------

case("http2/8.1.2.3/1", "RFC 9113 §8.3.1", "Sends an empty :path: PROTOCOL_ERROR")(
    _malformed_get(lambda conn: [(n, "" if n == ":path" else v) for n, v in conn.request_fields()]))

for _number, _name in ((2, ":method"), (3, ":scheme"), (4, ":path")):
    case(f"http2/8.1.2.3/{_number}", "RFC 9113 §8.3.1", f"Sends a request without {_name}: PROTOCOL_ERROR")(
        _malformed_get(_request_without(_name)))

for _number, _name in ((5, ":method"), (6, ":scheme"), (7, ":path")):
    case(f"http2/8.1.2.3/{_number}", "RFC 9113 §8.3.1", f"Sends {_name} twice: PROTOCOL_ERROR")(
        _malformed_get(_request_doubling(_name)))


# --- 8.1.2.6. Malformed requests and responses -------------------------------------------------------------------

def _post_contradicting_length(conn, *bodies):
    conn.send(frames.headers(1, conn.request_block("POST", extra=[("content-length", "1")]), end_stream=False))
    for i, body in enumerate(bodies):
        conn.send(frames.data(1, body, end_stream=i == len(bodies) - 1))
    return expect.stream_error(conn, 1, PROTOCOL_ERROR)


@case("http2/8.1.2.6/1", "RFC 9113 §8.1.1",
      "Sends content-length: 1 and a 4-octet DATA frame: PROTOCOL_ERROR")
def _(conn):
    return _post_contradicting_length(conn, b"test")


@case("http2/8.1.2.6/2", "RFC 9113 §8.1.1",
      "Sends content-length: 1 and two 4-octet DATA frames: PROTOCOL_ERROR")
def _(conn):
    return _post_contradicting_length(conn, b"test", b"test")


# --- 8.2. Server push --------------------------------------------------------------------------------------------

@case("http2/8.2/1", "RFC 9113 §8.4",
      "Sends a PUSH_PROMISE frame (a client must not): connection error PROTOCOL_ERROR")
def _(conn):
    conn.send(frames.push_promise(1, 3, conn.request_block()))
    return expect.connection_error(conn, PROTOCOL_ERROR)
