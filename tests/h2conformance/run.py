#!/usr/bin/python3
# The HTTP/2 conformance suite's entry: starts the example servers, runs every case (h2spec's list, RFC 9113 and
# RFC 7541) on a fresh connection over cleartext and over TLS, prints a table, and exits 1 if any case failed.
#
#     /usr/bin/python3 tests/h2conformance/run.py --cleartext-server build/examples/cpp/hello_world \
#         --tls-server build/examples/cpp/https_server [--only http2/6.9] [--verbose]
#
# Needs Debian's python3-h2 (h2, hpack, hyperframe). Without it the suite exits 77, which ctest reports as skipped,
# unless the environment variable CI is set, where it fails.
import argparse
import os
import signal
import subprocess
import sys
import time
import traceback

SKIP_EXIT_STATUS = 77

try:
    import h2  # noqa: F401  (the package whose hpack and hyperframe the suite uses)
except ImportError:
    message = ("the HTTP/2 conformance suite needs python3-h2: apt-get install python3-h2 "
               "(bash scripts/deps.sh --install)")
    in_ci = os.environ.get("CI", "").lower() not in ("", "0", "false", "no")
    print(("FAIL: " if in_ci else "SKIP: ") + message, file=sys.stderr)
    sys.exit(1 if in_ci else SKIP_EXIT_STATUS)

# The case modules are imported from the source tree; no __pycache__ is left there.
sys.dont_write_bytecode = True
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import cases_generic  # noqa: E402
import cases_hpack  # noqa: E402
import cases_http2_connection  # noqa: E402
import cases_http2_frames  # noqa: E402
import cases_http2_messages  # noqa: E402
import expect  # noqa: E402
from connection import Connection, HandshakeFailed, Target  # noqa: E402
from server import Server  # noqa: E402

ALL_CASES = (cases_generic.CASES + cases_http2_connection.CASES + cases_http2_frames.CASES
             + cases_http2_messages.CASES + cases_hpack.CASES)
DEFAULT_TIMEOUT = 2.0
EXIT_WAIT = 0.5  # seconds a failed case waits to see whether the server is exiting
RECEIVED_SHOWN = 10  # frames of a result shown in the report; the middle of a longer exchange is elided

# Cases a server is known to fail, by identifier, with the reason (e.g. an RFC 7540 priority behaviour RFC 9113
# dropped). Their failure is reported as "differs" and does not fail the run; their passing fails it, so that the
# entry is removed. Empty: the example servers pass every case (the priority cases included).
EXPECTED_TO_DIFFER = {}


class Result:
    def __init__(self, case, passed, expected="", received=(), error=""):
        self.case = case
        self.passed = passed
        self.expected = expected
        self.received = list(received)
        self.error = error

    def failure_text(self):
        lines = []
        if self.error:
            lines.append(f"error: {self.error}")
        if self.expected:
            lines.append(f"expected: {self.expected}")
        received = self.received
        if len(received) > RECEIVED_SHOWN:
            received = received[:2] + [f"... {len(received) - RECEIVED_SHOWN} more ..."] + received[2 - RECEIVED_SHOWN:]
        lines.append("received: " + ("; ".join(received) if received else "nothing"))
        return lines


def run_case(case, target):
    try:
        conn = Connection(target)
    except (OSError, HandshakeFailed) as error:
        return Result(case, False, error=f"cannot connect: {error}")
    try:
        if case.handshake:
            conn.handshake()
        verdict = case.run(conn)
    except expect.StepFailed as failed:
        verdict = failed.verdict
    except HandshakeFailed as error:
        return Result(case, False, error=str(error), received=conn.received)
    except Exception:
        return Result(case, False, error=traceback.format_exc(limit=3).strip(), received=conn.received)
    finally:
        conn.close()
    return Result(case, verdict.passed, verdict.expected, conn.received)


def run_transport(binary, tls, cases, timeout):
    """Runs `cases` against a server started from `binary`. A server that exits (it never should, whatever a case
    sends) fails the case after which it was found gone and the one before, and every case after; one that does
    not start fails them all."""
    results = []
    try:
        with Server(binary, tls) as server:
            target = Target(server.port, tls, timeout)
            for case in cases:
                result = run_case(case, target)
                results.append(result)
                # A crash caused by a case that expects the connection closed passes that case and fails the next
                # one (refused, reset), often before the process is gone: on a failure, wait a little to tell.
                status = server.exited(0 if result.passed else EXIT_WAIT)
                if status is not None:
                    for suspect in results[-2:]:
                        suspect.passed = False
                        suspect.error = f"the server exited during or just after this case (status {status})"
                    results += [Result(rest, False, error=f"the server had exited (status {status})")
                                for rest in cases[len(results):]]
                    break
    except (OSError, RuntimeError, subprocess.CalledProcessError) as error:
        return [Result(case, False, error=f"cannot start {binary}: {error}") for case in cases]
    return results


def mark(result):
    """The table's word for a result, and whether it fails the run."""
    if result.case.id in EXPECTED_TO_DIFFER:
        return ("differs", False) if not result.passed else ("XPASS", True)
    return ("pass", False) if result.passed else ("FAIL", True)


def print_report(cases, by_transport, verbose):
    transports = list(by_transport)
    width = max(len(case.id) for case in cases)
    section_width = max(len(case.section) for case in cases)
    print(f"{'case':<{width}}  " + "  ".join(f"{name:<9}" for name in transports)
          + f"  {'section':<{section_width}}  description")
    for index, case in enumerate(cases):
        words = [mark(by_transport[name][index])[0] for name in transports]
        print(f"{case.id:<{width}}  " + "  ".join(f"{word:<9}" for word in words)
              + f"  {case.section:<{section_width}}  {case.description}")
        if case.id in EXPECTED_TO_DIFFER:
            print(f"{'':<{width}}    expected to differ: {EXPECTED_TO_DIFFER[case.id]}")
        for name in transports:
            result = by_transport[name][index]
            if not result.passed or verbose:
                for line in result.failure_text():
                    print(f"{'':<{width}}    [{name}] {line}")


def main():
    parser = argparse.ArgumentParser(description="The HTTP/2 conformance suite (h2spec's cases) against the examples")
    parser.add_argument("--cleartext-server", help="example binary answering HTTP/2 by prior knowledge")
    parser.add_argument("--tls-server", help="example binary answering HTTP/2 over TLS (ALPN h2)")
    parser.add_argument("--only", action="append", default=[],
                        help="run only the cases whose identifier starts with this (repeatable)")
    parser.add_argument("--timeout", type=float, default=DEFAULT_TIMEOUT, help="seconds each expectation may wait")
    parser.add_argument("--verbose", action="store_true", help="show what was received for passing cases too")
    parser.add_argument("--list", action="store_true", help="list the cases and exit")
    args = parser.parse_args()

    cases = [case for case in ALL_CASES if not args.only or any(case.id.startswith(p) for p in args.only)]
    if args.list:
        for case in cases:
            print(f"{case.id:<16} {case.section:<18} {case.description}")
        return 0
    if not (args.cleartext_server or args.tls_server):
        parser.error("give --cleartext-server, --tls-server or both")
    if not cases:
        parser.error(f"no case starts with {args.only}")

    # A SIGTERM (ctest's timeout, a CI runner stopping) unwinds like an exception, so the server is stopped and the
    # temporary directory removed.
    signal.signal(signal.SIGTERM, lambda signum, frame: sys.exit(128 + signum))
    started = time.monotonic()
    by_transport = {}
    if args.cleartext_server:
        by_transport["cleartext"] = run_transport(args.cleartext_server, False, cases, args.timeout)
    if args.tls_server:
        by_transport["tls"] = run_transport(args.tls_server, True, cases, args.timeout)
    elapsed = time.monotonic() - started

    print_report(cases, by_transport, args.verbose)
    failed = 0
    for name, results in by_transport.items():
        passed = sum(result.passed for result in results)
        failing = sum(mark(result)[1] for result in results)
        failed += failing
        print(f"{name}: {passed}/{len(results)} passed, {failing} failing the run")
    print(f"{len(cases)} cases on {len(by_transport)} transport(s) in {elapsed:.1f} s")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
