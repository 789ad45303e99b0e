"""Reads on token families (SPEC A-3)."""

from __future__ import annotations

import uuid

from apps.oauth.models import TokenFamily


def family_of_code(*, code: str, application) -> uuid.UUID | None:
    """The family an authorization code of this client was exchanged for, if it ever was (by the code's hash)."""
    return TokenFamily.objects.filter(code=code, application=application).values_list("family", flat=True).first()
