# One client connection of the conformance suite, over TCP (HTTP/2 by prior knowledge) or TLS (ALPN h2): it sends
# bytes exactly as a case builds them, reads what the server sends as events (a frame, the connection closed, or
# the deadline passed), and keeps a one-line log of everything received for the report.
import socket
import ssl
import time
from dataclasses import dataclass

import hpack

import frames


@dataclass
class Closed:
    """The server closed the connection (end of stream, reset, or TLS ended)."""
    how: str

    def __str__(self):
        return f"connection closed ({self.how})"


@dataclass
class TimedOut:
    seconds: float

    def __str__(self):
        return f"nothing more within {self.seconds:g} s"


class HandshakeFailed(Exception):
    pass


@dataclass
class Target:
    """Where a case connects: the server's port, whether over TLS, and how long each expectation may wait."""
    port: int
    tls: bool
    timeout: float
    host: str = "127.0.0.1"

    @property
    def scheme(self):
        return "https" if self.tls else "http"

    @property
    def authority(self):
        return f"{self.host}:{self.port}"


class Connection:
    def __init__(self, target):
        self.target = target
        self.encoder = hpack.Encoder()
        self.server_settings = {}
        self.received = []
        self._buffer = bytearray()
        self._closed = None
        sock = socket.create_connection((target.host, target.port), timeout=target.timeout)
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        if target.tls:
            context = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
            context.check_hostname = False
            context.verify_mode = ssl.CERT_NONE
            context.set_alpn_protocols(["h2"])
            sock = context.wrap_socket(sock, server_hostname="localhost")
            if sock.selected_alpn_protocol() != "h2":
                sock.close()
                raise HandshakeFailed(f"ALPN chose {sock.selected_alpn_protocol()!r}, not h2")
        self._socket = sock

    def close(self):
        try:
            self._socket.close()
        except OSError:
            pass

    def send(self, *chunks):
        """Writes the chunks (frames or any bytes). A write the server refuses because it already closed is not an
        error: the case then reads the close."""
        try:
            self._socket.sendall(b"".join(chunks))
        except (BrokenPipeError, ConnectionResetError, ssl.SSLError):
            pass

    # --- Header blocks -------------------------------------------------------------------------------------------

    def request_fields(self, method="GET", path="/"):
        """The four request pseudo-header fields of a request to this server, as (name, value) pairs."""
        return [(":method", method), (":scheme", self.target.scheme), (":path", path),
                (":authority", self.target.authority)]

    def encode(self, fields):
        """An HPACK block of the fields, with this connection's encoder (its dynamic table follows what was sent)."""
        return self.encoder.encode(fields)

    def request_block(self, method="GET", path="/", extra=()):
        return self.encode(self.request_fields(method, path) + list(extra))

    # --- Reading -------------------------------------------------------------------------------------------------

    def next_event(self, deadline):
        """The next frame (hyperframe object, with `.length` set), Closed, or TimedOut at `deadline`."""
        if self._closed is not None:
            return self._closed
        header = self._read_exactly(frames.HEADER_LENGTH, deadline)
        if not isinstance(header, bytes):
            return self._finish(header)
        frame, length = frames.parse_header(header)
        body = self._read_exactly(length, deadline)
        if not isinstance(body, bytes):
            return self._finish(body)
        frame.parse_body(memoryview(body))
        frame.length = length
        self.received.append(frames.describe(frame, length))
        return frame

    def read_raw_until_closed(self, deadline):
        """All bytes until the server closes (returns (bytes, Closed)) or the deadline passes (bytes, TimedOut)."""
        while True:
            event = self._fill(deadline)
            if event is not None:
                received = bytes(self._buffer)
                self._buffer.clear()
                return received, self._finish(event)

    def handshake(self, *settings_pairs):
        """Sends the preface and a SETTINGS frame, answers the server's SETTINGS and waits for the ACK of ours."""
        self.send(frames.PREFACE, frames.settings(*settings_pairs))
        deadline = time.monotonic() + self.target.timeout
        have_settings = have_ack = False
        while not (have_settings and have_ack):
            event = self.next_event(deadline)
            if not isinstance(event, frames.Frame):
                raise HandshakeFailed(f"during the handshake: {event}; received {self.received}")
            if isinstance(event, frames.SettingsFrame):
                if "ACK" in event.flags:
                    have_ack = True
                else:
                    have_settings = True
                    self.server_settings.update(event.settings)
                    self.send(frames.settings(ack=True))
        self.received.clear()

    def _finish(self, event):
        if isinstance(event, Closed):
            if self._buffer:
                event = Closed(f"{event.how}, {len(self._buffer)} bytes left that are not a whole frame")
            self._closed = event
            self.received.append(str(event))
        else:
            self.received.append(str(event))
        return event

    def _read_exactly(self, count, deadline):
        while len(self._buffer) < count:
            event = self._fill(deadline)
            if event is not None:
                return event
        chunk = bytes(self._buffer[:count])
        del self._buffer[:count]
        return chunk

    def _fill(self, deadline):
        """Reads once into the buffer; returns Closed or TimedOut when that is what happened, else None."""
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            return TimedOut(self.target.timeout)
        self._socket.settimeout(remaining)
        try:
            chunk = self._socket.recv(65536)
        except socket.timeout:
            return TimedOut(self.target.timeout)
        except ConnectionResetError:
            return Closed("reset")
        except ssl.SSLError as error:
            return Closed(f"TLS: {error.reason or error}")
        except OSError as error:
            return Closed(str(error))
        if not chunk:
            return Closed("end of stream")
        self._buffer += chunk
        return None
