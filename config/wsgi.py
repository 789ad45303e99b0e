"""The WSGI application, for WSGI servers; the product is served over ASGI by default (config/serving.py)."""

import os

from django.core.wsgi import get_wsgi_application

from config.worker import settle

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
application = get_wsgi_application()

settle()
