"""The one coded error: a refusal with a stable ``code`` that callers match on."""

from __future__ import annotations


class CodedError(Exception):
    """A refusal with a stable ``code``, a readable ``message`` and the ``field`` at fault, if any.

    ``FIELD_KEY`` is the name ``as_dict`` gives the field on the wire.
    """

    FIELD_KEY = "field"

    def __init__(self, code: str, message: str, field: str | None = None):
        super().__init__(message)
        self.code = code
        self.message = message
        self.field = field

    def as_dict(self) -> dict[str, str]:
        error = {"code": self.code, "message": self.message}
        if self.field is not None:
            error[self.FIELD_KEY] = self.field
        return error

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.code!r}, {self.message!r}, {self.FIELD_KEY}={self.field!r})"
