# A conformance case: its identifier (h2spec's numbering, e.g. "http2/6.9.1/2"), the RFC section it checks, a
# one-line description, and the function that runs it on a fresh connection and returns an expect.Verdict.
from dataclasses import dataclass
from typing import Callable


@dataclass
class Case:
    id: str
    section: str
    description: str
    run: Callable
    handshake: bool = True  # False: the case writes the connection preface itself


def registrar(cases):
    """A decorator that appends each case it marks to `cases`, in the order of the module."""
    def case(case_id, section, description, handshake=True):
        def register(run):
            cases.append(Case(case_id, section, description, run, handshake))
            return run
        return register
    return case
