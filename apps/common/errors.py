"""The one coded error: a refusal with a stable ``code`` that callers match on."""

from __future__ import annotations

# The product's refusal codes (SPEC M-8), one list for every layer that refuses: the MCP tools answer
# with them, and the proposal rules refuse with the same words. Stable: clients and tests match on them.
INVALID_ARGUMENT = "invalid_argument"
CONVERSATION_REFUSED = "conversation_refused"
SECRET_DETECTED = "secret_detected"
NOT_FOUND = "not_found"
VERSION_CONFLICT = "version_conflict"
DUPLICATE_PROCESSED = "duplicate_processed"
PROPOSAL_EXPIRED = "proposal_expired"
CATEGORY_NOT_ALLOWED = "category_not_allowed"
REPEATED_FAILURE = "repeated_failure"
TOO_MANY_PENDING = "too_many_pending"  # SPEC P-8
UNAVAILABLE = "unavailable"

TOOL_ERROR_CODES = (
    INVALID_ARGUMENT,
    CONVERSATION_REFUSED,
    SECRET_DETECTED,
    NOT_FOUND,
    VERSION_CONFLICT,
    DUPLICATE_PROCESSED,
    PROPOSAL_EXPIRED,
    CATEGORY_NOT_ALLOWED,
    REPEATED_FAILURE,
    TOO_MANY_PENDING,
    UNAVAILABLE,
)


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
