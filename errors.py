"""lamina's user-facing errors: every failure a user can cause is a LaminaError."""

from __future__ import annotations


class LaminaError(Exception):
    """Base class of every error lamina reports to users.

    The message says what is wrong, where, and what to do about it.
    """


class IRError(LaminaError):
    """Invalid IR: a failed verifier, a parse error or a malformed attribute.

    The message is one line, `file:line:col: what is wrong` when the place is
    known (MLIR's format without its `error:`). `location` is that place, `reason`
    the message without it, and `context` the offending source line with a caret
    under the place (MLIR prints it under the message; lamina shows it as a note of
    the exception, so only a traceback, e.g. `lamina --debug`, prints it).
    """

    #: (file, line, column), lines and columns from 1; None when unknown
    location: tuple[str, int, int] | None = None
    #: the message without the location
    reason: str = ""
    #: the source line and a caret line under the location, if known
    context: str | None = None

    def __init__(
        self,
        message: str,
        *,
        location: tuple[str, int, int] | None = None,
        context: str | None = None,
    ) -> None:
        where = f"{location[0]}:{location[1]}:{location[2]}: " if location else ""
        super().__init__(f"{where}{message}")
        self.location = location
        self.reason = message
        self.context = context
        if context:
            self.add_note(context)


class LoweringError(LaminaError):
    """A program that a lowering step cannot translate."""


class FrontendError(LaminaError):
    """A model that the importer cannot read or does not support."""


class UnsupportedOpError(FrontendError, NotImplementedError):
    """An op (or op version) that lamina does not implement yet."""


class CompileError(LaminaError):
    """Native code generation or JIT failure."""


class InputError(LaminaError, ValueError):
    """Run-time misuse: wrong number, shape or dtype of inputs."""


class InternalError(LaminaError):
    """A bug in lamina: a pass raised an unexpected exception (its `__cause__`).

    `pass_name` names the pass; lamina-opt writes a crash reproducer for it.
    """

    def __init__(self, message: str, pass_name: str | None = None) -> None:
        super().__init__(message)
        self.pass_name = pass_name
