"""The ASGI application. Production serves it with ``python -m config.serving`` (docs/deploy.md).

``/mcp`` is served at this entry point, beside Django's middleware chain
(``apps/mcp_server/transport/entry.py``); everything else is Django's.
"""

import os

from django.core.asgi import get_asgi_application

from config.worker import settle

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
django_application = get_asgi_application()

from apps.mcp_server.transport.entry import mount  # noqa: E402  (needs the apps loaded above)

application = mount(django_application)
settle()
