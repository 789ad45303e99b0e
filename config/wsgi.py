"""The WSGI application, for WSGI servers; the product is served over ASGI by default (config/serving.py)."""

import gc
import os

from django.core.wsgi import get_wsgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
application = get_wsgi_application()

gc.freeze()  # what the worker loaded lives as long as it does: out of full collections (config/asgi.py)
