"""The page a locked-out login gets (SPEC A-11): django-axes' ``AXES_LOCKOUT_CALLABLE``.

Design notes: docs/design.md.
"""

from __future__ import annotations

import math
from typing import Any

from django.conf import settings
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.utils.cache import add_never_cache_headers

TEMPLATE = "registration/locked.html"


# SPEC A-11 (home)
def lockout_response(
    request: HttpRequest, original_response: HttpResponse | None = None, credentials: dict[str, Any] | None = None,
) -> HttpResponse:
    """429 with the cool-off in minutes, ``Retry-After`` and ``no-store``; the person's login and the admin's."""
    minutes = max(1, math.ceil(settings.AXES_COOLOFF_TIME.total_seconds() / 60))
    response = render(request, TEMPLATE, {"minutes": minutes}, status=429)
    response["Retry-After"] = str(minutes * 60)
    add_never_cache_headers(response)
    return response
