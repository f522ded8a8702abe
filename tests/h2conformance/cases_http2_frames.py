# h2spec's "http2" cases for RFC 9113 §6, the frame definitions: each frame type sent on the wrong stream, with the
# wrong length or bad padding, settings out of range, flow-control windows driven to their limits, and header blocks
# interrupted or continued wrongly.
import struct

import expect
import frames
from case import registrar
from cases_http2_connection import dummy_block
from frames import (ACK, CANCEL, DATA, ENABLE_PUSH, END_HEADERS, END_STREAM, FLOW_CONTROL_ERROR, FRAME_SIZE_ERROR,
                    GOAWAY, HEADERS, INITIAL_WINDOW_SIZE, MAX_FRAME_SIZE, MAX_WINDOW, PADDED, PING, PRIORITY,
                    PROTOCOL_ERROR, RST_STREAM, SETTINGS, STREAM_CLOSED, WINDOW_UPDATE)

CASES = []
case = registrar(CASES)

H2SPEC = b"h2spec\x00\x00"


def _get(conn, stream_id=1, end_stream=True, end_headers=True):
    conn.send(frames.headers(stream_id, conn.request_block(), end_stream=end_stream, end_headers=end_headers))


def _post_headers(conn, end_stream=False, end_headers=True, extra=()):
    conn.send(frames.headers(1, conn.request_block("POST", extra=extra), end_stream=end_stream,
                             end_headers=end_headers))


# --- 6.1. DATA ---------------------------------------------------------------------------------------------------

@case("http2/6.1/1", "RFC 9113 §6.1", "Sends a DATA frame on stream 0x0: connection error PROTOCOL_ERROR")
def _(conn):
    conn.send(frames.data(0, b"test"))
    return expect.connection_error(conn, PROTOCOL_ERROR)


@case("http2/6.1/2", "RFC 9113 §6.1",
      "Sends a DATA frame on a stream not \"open\" or \"half-closed (local)\": STREAM_CLOSED")
def _(conn):
    _post_headers(conn, end_stream=True)
    conn.send(frames.data(1, b"test"))
    return expect.stream_error(conn, 1, STREAM_CLOSED)


@case("http2/6.1/3", "RFC 9113 §6.1",
      "Sends a DATA frame whose pad length exceeds the payload: connection error PROTOCOL_ERROR")
def _(conn):
    _post_headers(conn, extra=[("content-length", "4")])
    conn.send(frames.raw(DATA, PADDED | END_STREAM, 1, b"\x06Test"))
    return expect.connection_error(conn, PROTOCOL_ERROR)


# --- 6.2. HEADERS ------------------------------------------------------------------------------------------------

@case("http2/6.2/1", "RFC 9113 §6.2",
      "Sends a HEADERS frame without END_HEADERS, then a PRIORITY frame: connection error PROTOCOL_ERROR")
def _(conn):
    _get(conn, end_stream=False, end_headers=False)
    conn.send(frames.priority(1), frames.continuation(1, dummy_block(conn)))
    return expect.connection_error(conn, PROTOCOL_ERROR)


@case("http2/6.2/2", "RFC 9113 §6.2",
      "Sends a HEADERS frame for another stream while a header block is open: connection error PROTOCOL_ERROR")
def _(conn):
    _get(conn, end_stream=False, end_headers=False)
    _get(conn, stream_id=3)
    conn.send(frames.continuation(1, dummy_block(conn)))
    return expect.connection_error(conn, PROTOCOL_ERROR)


@case("http2/6.2/3", "RFC 9113 §6.2", "Sends a HEADERS frame on stream 0x0: connection error PROTOCOL_ERROR")
def _(conn):
    _get(conn, stream_id=0)
    return expect.connection_error(conn, PROTOCOL_ERROR)


@case("http2/6.2/4", "RFC 9113 §6.2", "Sends a HEADERS frame whose pad length exceeds the payload: PROTOCOL_ERROR")
def _(conn):
    block = conn.request_block()
    conn.send(frames.raw(HEADERS, END_STREAM | END_HEADERS | PADDED, 1, bytes([len(block) + 2]) + block))
    return expect.stream_error(conn, 1, PROTOCOL_ERROR)


# --- 6.3. PRIORITY -----------------------------------------------------------------------------------------------

@case("http2/6.3/1", "RFC 9113 §6.3", "Sends a PRIORITY frame on stream 0x0: connection error PROTOCOL_ERROR")
def _(conn):
    conn.send(frames.priority(0))
    return expect.connection_error(conn, PROTOCOL_ERROR)


@case("http2/6.3/2", "RFC 9113 §6.3", "Sends a PRIORITY frame of 4 octets: FRAME_SIZE_ERROR")
def _(conn):
    _get(conn)
    conn.send(frames.raw(PRIORITY, 0, 1, b"\x80\x00\x00\x01"))
    return expect.stream_error(conn, 1, FRAME_SIZE_ERROR)


# --- 6.4. RST_STREAM ---------------------------------------------------------------------------------------------

@case("http2/6.4/1", "RFC 9113 §6.4", "Sends a RST_STREAM frame on stream 0x0: connection error PROTOCOL_ERROR")
def _(conn):
    conn.send(frames.rst_stream(0, CANCEL))
    return expect.connection_error(conn, PROTOCOL_ERROR)


@case("http2/6.4/2", "RFC 9113 §6.4", "Sends a RST_STREAM frame on an idle stream: connection error PROTOCOL_ERROR")
def _(conn):
    conn.send(frames.rst_stream(1, CANCEL))
    return expect.connection_error(conn, PROTOCOL_ERROR)


@case("http2/6.4/3", "RFC 9113 §6.4", "Sends a RST_STREAM frame of 3 octets: FRAME_SIZE_ERROR")
def _(conn):
    _get(conn)
    conn.send(frames.raw(RST_STREAM, 0, 1, bytes(3)))
    return expect.stream_error(conn, 1, FRAME_SIZE_ERROR)


# --- 6.5. SETTINGS -----------------------------------------------------------------------------------------------

@case("http2/6.5/1", "RFC 9113 §6.5",
      "Sends a SETTINGS frame with ACK and a payload: connection error FRAME_SIZE_ERROR")
def _(conn):
    conn.send(frames.raw(SETTINGS, ACK, 0, b"\x00"))
    return expect.connection_error(conn, FRAME_SIZE_ERROR)


@case("http2/6.5/2", "RFC 9113 §6.5", "Sends a SETTINGS frame on stream 1: connection error PROTOCOL_ERROR")
def _(conn):
    conn.send(frames.raw(SETTINGS, 0, 1, struct.pack(">HI", frames.MAX_CONCURRENT_STREAMS, 100)))
    return expect.connection_error(conn, PROTOCOL_ERROR)


@case("http2/6.5/3", "RFC 9113 §6.5",
      "Sends a SETTINGS frame of 3 octets (not a multiple of 6): connection error FRAME_SIZE_ERROR (or PROTOCOL_ERROR)")
def _(conn):
    conn.send(frames.raw(SETTINGS, 0, 0, b"\x00\x03\x00"))
    return expect.connection_error(conn, FRAME_SIZE_ERROR, PROTOCOL_ERROR)


# --- 6.5.2. Defined SETTINGS parameters --------------------------------------------------------------------------

@case("http2/6.5.2/1", "RFC 9113 §6.5.2", "SETTINGS_ENABLE_PUSH (0x2) of 2: connection error PROTOCOL_ERROR")
def _(conn):
    conn.send(frames.settings((ENABLE_PUSH, 2)))
    return expect.connection_error(conn, PROTOCOL_ERROR)


@case("http2/6.5.2/2", "RFC 9113 §6.5.2",
      "SETTINGS_INITIAL_WINDOW_SIZE (0x4) of 2^31: connection error FLOW_CONTROL_ERROR")
def _(conn):
    conn.send(frames.settings((INITIAL_WINDOW_SIZE, MAX_WINDOW + 1)))
    return expect.connection_error(conn, FLOW_CONTROL_ERROR)


@case("http2/6.5.2/3", "RFC 9113 §6.5.2", "SETTINGS_MAX_FRAME_SIZE (0x5) of 16,383: connection error PROTOCOL_ERROR")
def _(conn):
    conn.send(frames.settings((MAX_FRAME_SIZE, 16383)))
    return expect.connection_error(conn, PROTOCOL_ERROR)


@case("http2/6.5.2/4", "RFC 9113 §6.5.2", "SETTINGS_MAX_FRAME_SIZE (0x5) of 2^24: connection error PROTOCOL_ERROR")
def _(conn):
    conn.send(frames.settings((MAX_FRAME_SIZE, 2**24)))
    return expect.connection_error(conn, PROTOCOL_ERROR)


@case("http2/6.5.2/5", "RFC 9113 §6.5.2", "Sends a SETTINGS frame with an unknown identifier (0xFF): ignored")
def _(conn):
    conn.send(frames.settings((0xFF, 1)), frames.ping())
    return expect.ping_ack(conn)


# --- 6.5.3. Settings synchronization -----------------------------------------------------------------------------

@case("http2/6.5.3/1", "RFC 9113 §6.5.3",
      "Sends SETTINGS_INITIAL_WINDOW_SIZE twice in one frame (100, then 1): the last value counts (1-octet DATA)")
def _(conn):
    conn.send(frames.settings((INITIAL_WINDOW_SIZE, 100), (INITIAL_WINDOW_SIZE, 1)))
    expect.step(expect.settings_ack(conn))
    _get(conn)
    return expect.data_frame(conn, 1, length=1)


@case("http2/6.5.3/2", "RFC 9113 §6.5.3", "Sends a SETTINGS frame without ACK: the server acknowledges it")
def _(conn):
    conn.send(frames.settings((ENABLE_PUSH, 0)))
    return expect.settings_ack(conn)


# --- 6.7. PING ---------------------------------------------------------------------------------------------------

@case("http2/6.7/1", "RFC 9113 §6.7", "Sends a PING frame: answered with ACK and the same payload")
def _(conn):
    conn.send(frames.ping(H2SPEC))
    return expect.ping_ack(conn, H2SPEC)


@case("http2/6.7/2", "RFC 9113 §6.7", "Sends a PING frame with ACK: not answered (the next PING's answer comes first)")
def _(conn):
    conn.send(frames.ping(b"invalid\x00", ack=True), frames.ping(H2SPEC))
    return expect.ping_ack(conn, H2SPEC)


@case("http2/6.7/3", "RFC 9113 §6.7", "Sends a PING frame on stream 1: connection error PROTOCOL_ERROR")
def _(conn):
    conn.send(frames.raw(PING, 0, 1, bytes(8)))
    return expect.connection_error(conn, PROTOCOL_ERROR)


@case("http2/6.7/4", "RFC 9113 §6.7", "Sends a PING frame of 6 octets: connection error FRAME_SIZE_ERROR")
def _(conn):
    conn.send(frames.raw(PING, 0, 0, bytes(6)))
    return expect.connection_error(conn, FRAME_SIZE_ERROR)


# --- 6.8. GOAWAY -------------------------------------------------------------------------------------------------

@case("http2/6.8/1", "RFC 9113 §6.8", "Sends a GOAWAY frame on stream 1: connection error PROTOCOL_ERROR")
def _(conn):
    conn.send(frames.raw(GOAWAY, 0, 1, bytes(8)))
    return expect.connection_error(conn, PROTOCOL_ERROR)


# --- 6.9. WINDOW_UPDATE ------------------------------------------------------------------------------------------

@case("http2/6.9/1", "RFC 9113 §6.9", "Sends a WINDOW_UPDATE of 0 on the connection: connection error PROTOCOL_ERROR")
def _(conn):
    conn.send(frames.window_update(0, 0))
    return expect.connection_error(conn, PROTOCOL_ERROR)


@case("http2/6.9/2", "RFC 9113 §6.9", "Sends a WINDOW_UPDATE of 0 on a stream: PROTOCOL_ERROR")
def _(conn):
    _get(conn, end_stream=False)
    conn.send(frames.window_update(1, 0))
    return expect.stream_error(conn, 1, PROTOCOL_ERROR)


@case("http2/6.9/3", "RFC 9113 §6.9", "Sends a WINDOW_UPDATE frame of 3 octets: connection error FRAME_SIZE_ERROR")
def _(conn):
    conn.send(frames.raw(WINDOW_UPDATE, 0, 0, b"\x00\x00\x01"))
    return expect.connection_error(conn, FRAME_SIZE_ERROR)


# --- 6.9.1. The flow-control window ------------------------------------------------------------------------------

@case("http2/6.9.1/1", "RFC 9113 §6.9.1",
      "Sets SETTINGS_INITIAL_WINDOW_SIZE to 1, then sends a request: the server sends 1 octet of DATA")
def _(conn):
    conn.send(frames.settings((INITIAL_WINDOW_SIZE, 1)))
    expect.step(expect.settings_ack(conn))
    _get(conn)
    return expect.data_frame(conn, 1, length=1)


@case("http2/6.9.1/2", "RFC 9113 §6.9.1",
      "Sends WINDOW_UPDATEs taking the connection window above 2^31-1: GOAWAY(FLOW_CONTROL_ERROR)")
def _(conn):
    conn.send(frames.window_update(0, MAX_WINDOW), frames.window_update(0, MAX_WINDOW))
    return expect.goaway(conn, FLOW_CONTROL_ERROR)


@case("http2/6.9.1/3", "RFC 9113 §6.9.1",
      "Sends WINDOW_UPDATEs taking a stream window above 2^31-1: RST_STREAM(FLOW_CONTROL_ERROR)")
def _(conn):
    _get(conn, end_stream=False)
    conn.send(frames.window_update(1, MAX_WINDOW), frames.window_update(1, MAX_WINDOW))
    return expect.rst_stream(conn, 1, FLOW_CONTROL_ERROR)


# --- 6.9.2. Initial flow-control window size ---------------------------------------------------------------------

@case("http2/6.9.2/1", "RFC 9113 §6.9.2",
      "Changes SETTINGS_INITIAL_WINDOW_SIZE from 0 to 1 after a request: the open stream gets 1 octet of DATA")
def _(conn):
    conn.send(frames.settings((INITIAL_WINDOW_SIZE, 0)))
    expect.step(expect.settings_ack(conn))
    _get(conn)
    conn.send(frames.settings((INITIAL_WINDOW_SIZE, 1)))
    return expect.data_frame(conn, 1, length=1)


@case("http2/6.9.2/2", "RFC 9113 §6.9.2",
      "Lowers SETTINGS_INITIAL_WINDOW_SIZE so a stream window goes negative (3 sent, window 2 → -1), then adds 2: "
      "1 octet of DATA")
def _(conn):
    conn.send(frames.settings((INITIAL_WINDOW_SIZE, 3)))
    expect.step(expect.settings_ack(conn))
    _get(conn)
    expect.step(expect.data_frame(conn, 1, length=3))
    conn.send(frames.settings((INITIAL_WINDOW_SIZE, 2)))
    expect.step(expect.settings_ack(conn))
    conn.send(frames.window_update(1, 2))
    return expect.data_frame(conn, 1, length=1)


@case("http2/6.9.2/3", "RFC 9113 §6.9.2",
      "Sends SETTINGS_INITIAL_WINDOW_SIZE of 2^31: connection error FLOW_CONTROL_ERROR")
def _(conn):
    conn.send(frames.raw(SETTINGS, 0, 0, struct.pack(">HI", INITIAL_WINDOW_SIZE, 0x80000000)))
    return expect.connection_error(conn, FLOW_CONTROL_ERROR)


# --- 6.10. CONTINUATION ------------------------------------------------------------------------------------------

@case("http2/6.10/1", "RFC 9113 §6.10", "Sends a HEADERS frame followed by two CONTINUATION frames: accepted")
def _(conn):
    _get(conn, end_headers=False)
    conn.send(frames.continuation(1, dummy_block(conn), end_headers=False),
              frames.continuation(1, dummy_block(conn)))
    return expect.response_headers(conn, 1)


@case("http2/6.10/2", "RFC 9113 §6.10",
      "Sends a DATA frame where a CONTINUATION frame must follow: connection error PROTOCOL_ERROR")
def _(conn):
    _post_headers(conn, end_headers=False)
    conn.send(frames.continuation(1, dummy_block(conn), end_headers=False), frames.data(1, b"test"))
    return expect.connection_error(conn, PROTOCOL_ERROR)


@case("http2/6.10/3", "RFC 9113 §6.10", "Sends a CONTINUATION frame on stream 0x0: connection error PROTOCOL_ERROR")
def _(conn):
    _get(conn, end_headers=False)
    conn.send(frames.continuation(0, dummy_block(conn)))
    return expect.connection_error(conn, PROTOCOL_ERROR)


@case("http2/6.10/4", "RFC 9113 §6.10",
      "Sends a CONTINUATION frame after a HEADERS frame with END_HEADERS: connection error PROTOCOL_ERROR")
def _(conn):
    _get(conn)
    conn.send(frames.continuation(1, dummy_block(conn)))
    return expect.connection_error(conn, PROTOCOL_ERROR)


@case("http2/6.10/5", "RFC 9113 §6.10",
      "Sends a CONTINUATION frame after a CONTINUATION frame with END_HEADERS: connection error PROTOCOL_ERROR")
def _(conn):
    _get(conn, end_headers=False)
    conn.send(frames.continuation(1, dummy_block(conn)), frames.continuation(1, dummy_block(conn)))
    return expect.connection_error(conn, PROTOCOL_ERROR)


@case("http2/6.10/6", "RFC 9113 §6.10",
      "Sends a CONTINUATION frame after a DATA frame: connection error PROTOCOL_ERROR")
def _(conn):
    _post_headers(conn, end_headers=False)
    conn.send(frames.data(1, b"test"), frames.continuation(1, dummy_block(conn), end_headers=False),
              frames.continuation(0, dummy_block(conn)))
    return expect.connection_error(conn, PROTOCOL_ERROR)
