# HTTP/2 frames as the conformance suite writes and reads them: well-formed frames are built with hyperframe,
# deliberately malformed ones (wrong lengths, stream 0 where a stream is required, bad padding, duplicate settings)
# with `raw`, since hyperframe refuses to serialise them. Received frames are parsed with hyperframe and described
# in one short line for the report.
import struct

from h2.errors import ErrorCodes
from hyperframe.frame import (ContinuationFrame, DataFrame, Frame, GoAwayFrame, HeadersFrame, PingFrame,
                              PriorityFrame, RstStreamFrame, SettingsFrame, WindowUpdateFrame)

PREFACE = b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n"
HEADER_LENGTH = 9
DEFAULT_MAX_FRAME_SIZE = 16384
MAX_WINDOW = 2**31 - 1

# Frame types (RFC 9113 §6).
DATA, HEADERS, PRIORITY, RST_STREAM, SETTINGS, PUSH_PROMISE, PING, GOAWAY, WINDOW_UPDATE, CONTINUATION = range(10)
# A type no specification defines (§5.5 says to ignore it).
UNKNOWN_TYPE = 0x16

# Flag bits.
END_STREAM = 0x1
ACK = 0x1
END_HEADERS = 0x4
PADDED = 0x8
PRIORITY_FLAG = 0x20

# Settings identifiers (§6.5.2).
HEADER_TABLE_SIZE = SettingsFrame.HEADER_TABLE_SIZE
ENABLE_PUSH = SettingsFrame.ENABLE_PUSH
MAX_CONCURRENT_STREAMS = SettingsFrame.MAX_CONCURRENT_STREAMS
INITIAL_WINDOW_SIZE = SettingsFrame.INITIAL_WINDOW_SIZE
MAX_FRAME_SIZE = SettingsFrame.MAX_FRAME_SIZE
MAX_HEADER_LIST_SIZE = SettingsFrame.MAX_HEADER_LIST_SIZE

# Error codes (§7), named as the RFC names them.
NO_ERROR = ErrorCodes.NO_ERROR
PROTOCOL_ERROR = ErrorCodes.PROTOCOL_ERROR
FLOW_CONTROL_ERROR = ErrorCodes.FLOW_CONTROL_ERROR
STREAM_CLOSED = ErrorCodes.STREAM_CLOSED
FRAME_SIZE_ERROR = ErrorCodes.FRAME_SIZE_ERROR
REFUSED_STREAM = ErrorCodes.REFUSED_STREAM
CANCEL = ErrorCodes.CANCEL
COMPRESSION_ERROR = ErrorCodes.COMPRESSION_ERROR
UNDEFINED_ERROR_CODE = 0xFF


def raw(frame_type, flags, stream_id, payload=b""):
    """Any frame at all: the 9-byte header (length from the payload) and the payload, nothing checked."""
    length = len(payload)
    return struct.pack(">BHBBI", length >> 16, length & 0xFFFF, frame_type, flags, stream_id) + payload


def _flags(*names_if):
    return {name for name, wanted in names_if if wanted}


def headers(stream_id, block, end_stream=True, end_headers=True, pad_length=None, depends_on=None, weight=16,
            exclusive=False):
    """A HEADERS frame (§6.2), on any stream (0 included); `pad_length` adds padding, `depends_on` the priority
    fields (`weight` is the octet on the wire, 0..255)."""
    flags = (END_STREAM if end_stream else 0) | (END_HEADERS if end_headers else 0)
    payload = block
    if depends_on is not None:
        flags |= PRIORITY_FLAG
        payload = struct.pack(">IB", depends_on | (0x80000000 if exclusive else 0), weight) + payload
    if pad_length is not None:
        flags |= PADDED
        payload = bytes([pad_length]) + payload + bytes(pad_length)
    return raw(HEADERS, flags, stream_id, payload)


def continuation(stream_id, block, end_headers=True):
    if stream_id == 0:
        return raw(CONTINUATION, END_HEADERS if end_headers else 0, 0, block)
    return ContinuationFrame(stream_id, data=block, flags=_flags(("END_HEADERS", end_headers))).serialize()


def data(stream_id, payload, end_stream=True, pad_length=None):
    if stream_id == 0:
        return raw(DATA, END_STREAM if end_stream else 0, 0, payload)
    frame = DataFrame(stream_id, data=payload,
                      flags=_flags(("END_STREAM", end_stream), ("PADDED", pad_length is not None)))
    if pad_length is not None:
        frame.pad_length = pad_length
    return frame.serialize()


def priority(stream_id, depends_on=0, weight=255, exclusive=False):
    if stream_id == 0:
        return raw(PRIORITY, 0, 0, struct.pack(">IB", depends_on | (0x80000000 if exclusive else 0), weight))
    return PriorityFrame(stream_id, depends_on=depends_on, stream_weight=weight, exclusive=exclusive).serialize()


def rst_stream(stream_id, error_code=CANCEL):
    if stream_id == 0:
        return raw(RST_STREAM, 0, 0, struct.pack(">I", error_code))
    return RstStreamFrame(stream_id, error_code=error_code).serialize()


def settings(*pairs, ack=False):
    """SETTINGS from (identifier, value) pairs in order; the same identifier may appear twice (§6.5.3)."""
    return raw(SETTINGS, ACK if ack else 0, 0, b"".join(struct.pack(">HI", key, value) for key, value in pairs))


def ping(opaque=bytes(8), ack=False):
    return PingFrame(0, opaque_data=opaque, flags=_flags(("ACK", ack))).serialize()


def goaway(last_stream_id=0, error_code=NO_ERROR, debug=b""):
    return GoAwayFrame(0, last_stream_id=last_stream_id, error_code=error_code, additional_data=debug).serialize()


def window_update(stream_id, increment):
    # hyperframe refuses an increment of 0, which two cases send on purpose.
    return raw(WINDOW_UPDATE, 0, stream_id, struct.pack(">I", increment))


def push_promise(stream_id, promised_stream_id, block):
    return raw(PUSH_PROMISE, END_HEADERS, stream_id, struct.pack(">I", promised_stream_id) + block)


def parse_header(header):
    """Parses 9 header bytes: (the hyperframe frame without its body, the body length)."""
    return Frame.parse_frame_header(memoryview(header))


def error_name(code):
    try:
        return ErrorCodes(code).name
    except ValueError:
        return f"0x{code:x}"


_SETTING_NAMES = {HEADER_TABLE_SIZE: "HEADER_TABLE_SIZE", ENABLE_PUSH: "ENABLE_PUSH",
                  MAX_CONCURRENT_STREAMS: "MAX_CONCURRENT_STREAMS", INITIAL_WINDOW_SIZE: "INITIAL_WINDOW_SIZE",
                  MAX_FRAME_SIZE: "MAX_FRAME_SIZE", MAX_HEADER_LIST_SIZE: "MAX_HEADER_LIST_SIZE"}


def describe(frame, length):
    """One line for the report, e.g. `RST_STREAM(stream 1, STREAM_CLOSED)`."""
    flags = "|".join(sorted(frame.flags))
    flags = f", {flags}" if flags else ""
    if isinstance(frame, GoAwayFrame):
        return f"GOAWAY({error_name(frame.error_code)}, last stream {frame.last_stream_id})"
    if isinstance(frame, RstStreamFrame):
        return f"RST_STREAM(stream {frame.stream_id}, {error_name(frame.error_code)})"
    if isinstance(frame, SettingsFrame):
        if "ACK" in frame.flags:
            return "SETTINGS(ACK)"
        values = ", ".join(f"{_SETTING_NAMES.get(key, key)}={value}" for key, value in frame.settings.items())
        return f"SETTINGS({values})"
    if isinstance(frame, PingFrame):
        return f"PING({bytes(frame.opaque_data)!r}{flags})"
    if isinstance(frame, WindowUpdateFrame):
        return f"WINDOW_UPDATE(stream {frame.stream_id}, +{frame.window_increment})"
    if isinstance(frame, DataFrame):
        return f"DATA(stream {frame.stream_id}, {length} bytes{flags})"
    if isinstance(frame, HeadersFrame):
        return f"HEADERS(stream {frame.stream_id}{flags})"
    return f"{type(frame).__name__}(type 0x{frame.type:x}, stream {frame.stream_id}, {length} bytes{flags})"
