"""Health endpoints for load balancers and orchestrators (SPEC O-3).

Design notes: docs/design.md.
"""

from __future__ import annotations

import sys

from django.conf import settings
from django.db import InterfaceError, OperationalError
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.template import loader
from django.utils.translation import get_language
from django.utils.translation import gettext_lazy as _
from django.views.decorators.cache import never_cache
from django.views.decorators.csrf import requires_csrf_token
from django.views.decorators.http import require_safe

from apps.ops import health


@never_cache
@require_safe
def healthz(request: HttpRequest) -> JsonResponse:
    """The process is up and serving. Touches no database, cache or storage."""
    return JsonResponse({"status": "ok"})


@never_cache
@require_safe
def readyz(request: HttpRequest) -> JsonResponse:
    """The process can serve requests: database, Redis (if configured) and storage answer."""
    checks = health.readiness()
    ready = health.is_ready(checks)
    body: dict[str, object] = {"status": "ok" if ready else "unavailable"}
    if _is_staff(request):
        body["checks"] = checks
    return JsonResponse(body, status=200 if ready else 503)


def _is_staff(request: HttpRequest) -> bool:
    # Without a session cookie there is nobody to look up: no database query
    # for the load balancer's probes, and no failure when the database is down.
    if settings.SESSION_COOKIE_NAME not in request.COOKIES:
        return False
    try:
        return bool(request.user.is_active and request.user.is_staff)
    except Exception:
        return False


RETRY_AFTER_SECONDS = 5
# Nothing is claimed about what the request carried: a change sent while the database was down was not saved.
_OUTAGE = (_("Temporarily unavailable"), _("Your memory is safe, but it cannot be reached just now. A change you "
                                           "were saving may not have been saved: try again in a few seconds."))
_FAULT = (_("Something went wrong"), _("The page could not be shown. The problem has been logged; please try again "
                                       "later."))


@requires_csrf_token
def server_error(request: HttpRequest) -> HttpResponse:
    """``handler500``: a request that failed because the database could not be reached is an outage the person
    may retry — 503 with ``Retry-After``, as /mcp answers — not a fault of the product's (500).

    Django calls it while handling the exception, which ``sys.exc_info()`` names. The page reads nothing: the
    database may be the very thing that failed."""
    outage = isinstance(sys.exc_info()[1], (OperationalError, InterfaceError))
    title, text = _OUTAGE if outage else _FAULT
    page = loader.get_template("error.html").render(  # no request: no context processor reads anything
        {"title": title, "text": text, "language": get_language()})
    response = HttpResponse(page, status=503 if outage else 500)
    if outage:
        response["Retry-After"] = str(RETRY_AFTER_SECONDS)
    return response
