# The server under test: one of the example binaries started with --http2 --port 0, its port read from the line it
# prints ("listening on N", examples/cpp/ExampleArgs.h), and stopped when the suite ends, whatever way it ends. The
# TLS server gets a self-signed EC certificate made in a temporary directory that goes with it.
import ctypes
import os
import re
import selectors
import signal
import subprocess
import tempfile
import threading
import time

STARTUP_TIMEOUT = 10.0
STOP_TIMEOUT = 5.0
PR_SET_PDEATHSIG = 1


def _die_with_parent():
    """Runs in the child before exec: if the suite is killed outright, the kernel kills the server too."""
    try:
        ctypes.CDLL(None, use_errno=True).prctl(PR_SET_PDEATHSIG, signal.SIGKILL)
    except (OSError, AttributeError):
        pass


class Server:
    """A started example server; use as a context manager so that it is stopped and its files removed."""

    def __init__(self, binary, tls):
        self.binary = binary
        self.tls = tls
        self.port = None
        self._process = None
        self._directory = None

    def __enter__(self):
        try:
            self._start()
        except BaseException:
            self.__exit__(None, None, None)
            raise
        return self

    def __exit__(self, *exc):
        if self._process is not None:
            if self._process.poll() is None:
                self._process.terminate()
                try:
                    self._process.wait(STOP_TIMEOUT)
                except subprocess.TimeoutExpired:
                    self._process.kill()
                    self._process.wait()
            self._process.stdout.close()
            self._process = None
        if self._directory is not None:
            self._directory.cleanup()
            self._directory = None
        return False

    def exited(self, wait=0):
        """The server's exit status if it has exited within `wait` seconds, else None."""
        try:
            return self._process.wait(wait) if wait else self._process.poll()
        except subprocess.TimeoutExpired:
            return None

    def _start(self):
        command = [self.binary, "--http2", "--port", "0"]
        if self.tls:
            self._directory = tempfile.TemporaryDirectory(prefix="h2conformance-")
            key = os.path.join(self._directory.name, "key.pem")
            cert = os.path.join(self._directory.name, "cert.pem")
            subprocess.run(["openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1",
                            "-nodes", "-keyout", key, "-out", cert, "-days", "1", "-subj", "/CN=localhost"],
                           check=True, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
            command += ["--key", key, "--cert", cert]
        self._process = subprocess.Popen(command, stdout=subprocess.PIPE, stdin=subprocess.DEVNULL,
                                         preexec_fn=_die_with_parent)
        self.port = self._read_port()
        # Whatever the server prints afterwards is read and dropped, so that a full pipe never blocks it.
        threading.Thread(target=self._drain, args=(self._process.stdout,), daemon=True).start()

    @staticmethod
    def _drain(stream):
        try:
            while os.read(stream.fileno(), 65536):
                pass
        except (OSError, ValueError):
            pass

    def _read_port(self):
        deadline = time.monotonic() + STARTUP_TIMEOUT
        output = b""
        with selectors.DefaultSelector() as selector:
            selector.register(self._process.stdout, selectors.EVENT_READ)
            while time.monotonic() < deadline:
                if not selector.select(deadline - time.monotonic()):
                    break
                chunk = os.read(self._process.stdout.fileno(), 4096)
                if not chunk:
                    break
                output += chunk
                found = re.search(rb"listening on (\d+)", output)
                if found:
                    return int(found.group(1))
        raise RuntimeError(f"{self.binary} did not announce its port within {STARTUP_TIMEOUT:g} s "
                           f"(exit status {self._process.poll()}, output {output!r})")
