"""The Django floors: a Django view that answers with the product's response bytes.

Two settings, one view (an async view, like the product's /mcp):

* ``bench.targets.floor_django:bare`` — Django alone: no installed apps, no
  middleware, one URL. What Django's ASGI handler costs by itself.
* ``bench.targets.floor_django:stack`` — the product's own settings and
  middleware (``config.settings``), with this view at /mcp instead of the
  MCP endpoint. What the product pays before its view runs.

The bytes are ``$BENCH_RESPONSE_FILE`` (the whole JSON-RPC response the
product sent). Choose one with ``$BENCH_DJANGO_FLOOR`` = ``bare`` | ``stack``;
the ASGI app is ``application``.
"""

from __future__ import annotations

import os

from django.http import HttpRequest, HttpResponse
from django.urls import path
from django.views.decorators.csrf import csrf_exempt

with open(os.environ["BENCH_RESPONSE_FILE"], "rb") as _file:
    BODY = _file.read()


@csrf_exempt
async def constant(request: HttpRequest) -> HttpResponse:
    request.body  # noqa: B018 - read it, as any view must
    response = HttpResponse(BODY, content_type="application/json")
    response["Cache-Control"] = "no-store"
    return response


urlpatterns = [path("mcp", constant)]


def _configure() -> None:
    from django.conf import settings

    if os.environ.get("BENCH_DJANGO_FLOOR", "bare") == "stack":
        os.environ["DJANGO_SETTINGS_MODULE"] = "bench.targets.floor_django_stack"
        return
    settings.configure(
        DEBUG=False,
        SECRET_KEY="bench-only-not-secret",
        ALLOWED_HOSTS=["127.0.0.1", "localhost"],
        ROOT_URLCONF=__name__,
        INSTALLED_APPS=[],
        MIDDLEWARE=[],
        USE_I18N=False,
        DATABASES={},
    )


_configure()

from django.core.asgi import get_asgi_application  # noqa: E402 - after _configure()

application = get_asgi_application()
