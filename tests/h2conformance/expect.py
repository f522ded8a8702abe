# What a case waits for after it has sent its frames. Each expectation reads events until one decides (pass or
# fail) or its deadline (Target.timeout) passes, which fails. Stricter than h2spec: a GOAWAY or RST_STREAM carrying
# an error code other than the expected ones fails at once (h2spec still passes if the connection closes afterwards),
# a GOAWAY for a connection error must be followed by the close, and a stream error must name the stream.
import time
from dataclasses import dataclass

import frames
from connection import Closed, TimedOut
from hyperframe.frame import DataFrame, GoAwayFrame, HeadersFrame, PingFrame, RstStreamFrame, SettingsFrame


@dataclass
class Verdict:
    passed: bool
    expected: str


def _await(conn, expected, judge):
    """Reads events until `judge(event)` returns True (pass) or False (fail); None means read on. TimedOut fails;
    judge sees Closed like a frame."""
    deadline = time.monotonic() + conn.target.timeout
    while True:
        event = conn.next_event(deadline)
        if isinstance(event, TimedOut):
            return Verdict(False, expected)
        decision = judge(event)
        if decision is not None:
            return Verdict(decision, expected)
        if isinstance(event, Closed):
            return Verdict(False, expected)


def _codes_text(codes):
    return " or ".join(frames.error_name(code) for code in codes)


def connection_error(conn, *codes):
    """A connection error (§5.4.1): the connection closed, after a GOAWAY with one of `codes` if any (the GOAWAY
    alone is not enough: §5.4.1 has the endpoint close the TCP connection after it)."""
    def judge(event):
        if isinstance(event, Closed):
            return True
        if isinstance(event, GoAwayFrame) and event.error_code not in codes:
            return False
        return None
    return _await(conn, f"GOAWAY({_codes_text(codes)}) and/or connection closed", judge)


def stream_error(conn, stream_id, *codes):
    """A stream error (§5.4.2) on `stream_id`: RST_STREAM with one of `codes`. A connection error with one of them
    (a close, after a GOAWAY if any) passes too."""
    def judge(event):
        if isinstance(event, Closed):
            return True
        if isinstance(event, GoAwayFrame) and event.error_code not in codes:
            return False
        if isinstance(event, RstStreamFrame) and event.stream_id == stream_id:
            return event.error_code in codes
        return None
    return _await(conn, f"RST_STREAM(stream {stream_id}, {_codes_text(codes)}), or GOAWAY(same) and/or connection "
                        "closed", judge)


def rst_stream(conn, stream_id, code):
    """Exactly a stream error: RST_STREAM on `stream_id` with `code`; a GOAWAY or a close fails."""
    def judge(event):
        if isinstance(event, (Closed, GoAwayFrame)):
            return False
        if isinstance(event, RstStreamFrame) and event.stream_id == stream_id:
            return event.error_code == code
        return None
    return _await(conn, f"RST_STREAM(stream {stream_id}, {frames.error_name(code)})", judge)


def goaway(conn, code):
    """Exactly a connection error with `code`: GOAWAY(code), then the connection closed; a close alone fails."""
    seen = []

    def judge(event):
        if isinstance(event, Closed):
            return bool(seen)
        if isinstance(event, GoAwayFrame):
            if event.error_code != code:
                return False
            seen.append(event)
        return None
    return _await(conn, f"GOAWAY({frames.error_name(code)}), then connection closed", judge)


def closed(conn):
    """The connection closed, whatever came before."""
    return _await(conn, "connection closed", lambda event: True if isinstance(event, Closed) else None)


def closed_after_invalid_preface(conn):
    """After an invalid preface the connection must not go on as HTTP/2 (§3.4): it is closed. A GOAWAY before the
    close must say PROTOCOL_ERROR; a server that also speaks HTTP/1.1 on the port may answer in HTTP/1.1 first."""
    expected = "connection closed (after GOAWAY(PROTOCOL_ERROR) or an HTTP/1.1 error response, if any)"
    received, end = conn.read_raw_until_closed(time.monotonic() + conn.target.timeout)
    passed = isinstance(end, Closed)
    if received.startswith(b"HTTP/1."):
        conn.received.insert(0, "HTTP/1.1 response: " + received.split(b"\r\n", 1)[0].decode("latin-1"))
        return Verdict(passed, expected)
    offset = 0
    while len(received) - offset >= frames.HEADER_LENGTH:
        frame, length = frames.parse_header(received[offset:offset + frames.HEADER_LENGTH])
        body = received[offset + frames.HEADER_LENGTH:offset + frames.HEADER_LENGTH + length]
        if len(body) < length:
            break
        frame.parse_body(memoryview(body))
        conn.received.insert(-1, frames.describe(frame, length))
        if isinstance(frame, GoAwayFrame) and frame.error_code != frames.PROTOCOL_ERROR:
            passed = False
        offset += frames.HEADER_LENGTH + length
    return Verdict(passed, expected)


def server_preface(conn):
    """The server's first frame is a SETTINGS frame without ACK (§3.4), whatever follows."""
    event = conn.next_event(time.monotonic() + conn.target.timeout)
    return Verdict(isinstance(event, SettingsFrame) and "ACK" not in event.flags, "SETTINGS (no ACK) as first frame")


def _fails_on_errors(event):
    """The common verdict for an expectation of something good: an error frame or a close fails it."""
    if isinstance(event, (Closed, GoAwayFrame, RstStreamFrame)):
        return False
    return None


def ping_ack(conn, opaque=bytes(8), or_closed=False):
    """A PING with ACK echoing `opaque` (§6.7); with `or_closed`, the connection closing passes too (after a GOAWAY
    from us the server may close instead of answering)."""
    def judge(event):
        if isinstance(event, Closed):
            return or_closed
        if isinstance(event, GoAwayFrame) and or_closed:
            return None
        if isinstance(event, PingFrame):
            return "ACK" in event.flags and bytes(event.opaque_data) == opaque
        return _fails_on_errors(event)
    text = f"PING(ACK, {opaque!r})" + (" or connection closed" if or_closed else "")
    return _await(conn, text, judge)


def settings_ack(conn):
    def judge(event):
        if isinstance(event, SettingsFrame) and "ACK" in event.flags:
            return True
        return _fails_on_errors(event)
    return _await(conn, "SETTINGS(ACK)", judge)


def response_headers(conn, stream_id):
    """The response's HEADERS frame on `stream_id`: the request was accepted."""
    def judge(event):
        if isinstance(event, HeadersFrame) and event.stream_id == stream_id:
            return True
        return _fails_on_errors(event)
    return _await(conn, f"HEADERS(stream {stream_id})", judge)


def data_frame(conn, stream_id, length=None):
    """A DATA frame on `stream_id` (of exactly `length` bytes if given): the server sent response body."""
    def judge(event):
        if isinstance(event, DataFrame) and event.stream_id == stream_id:
            return length is None or event.length == length
        return _fails_on_errors(event)
    size = "" if length is None else f", {length} bytes"
    return _await(conn, f"DATA(stream {stream_id}{size})", judge)


def stream_end(conn, stream_id):
    """The response on `stream_id` complete (END_STREAM on DATA or HEADERS), or RST_STREAM(NO_ERROR)."""
    def judge(event):
        if isinstance(event, (DataFrame, HeadersFrame)) and event.stream_id == stream_id:
            return True if "END_STREAM" in event.flags else None
        if isinstance(event, RstStreamFrame) and event.stream_id == stream_id:
            return event.error_code == frames.NO_ERROR
        return _fails_on_errors(event)
    return _await(conn, f"end of stream {stream_id}", judge)


class StepFailed(Exception):
    """An intermediate expectation of a case failed; the runner reports its verdict."""
    def __init__(self, verdict):
        super().__init__(verdict.expected)
        self.verdict = verdict


def step(verdict):
    """For an expectation a case needs met before it goes on (a SETTINGS ACK, a finished response)."""
    if not verdict.passed:
        raise StepFailed(verdict)
