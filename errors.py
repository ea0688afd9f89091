"""lamina's user-facing errors: every failure a user can cause is a LaminaError."""

from __future__ import annotations


class LaminaError(Exception):
    """Base class of every error lamina reports to users.

    The message says what is wrong, where, and what to do about it.
    """


class IRError(LaminaError):
    """Invalid IR: a failed verifier, a parse error or a malformed attribute."""


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
