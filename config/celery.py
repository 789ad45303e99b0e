"""The Celery app. Broker, result store and beat schedule come from settings (SPEC J-1).

    celery -A config worker --loglevel INFO      # any number of them
    celery -A config beat --loglevel INFO        # exactly one in the deployment

Without REDIS_URL (the local default) tasks run inline when called and
nothing is scheduled. Tasks live in each app's ``tasks.py``; see docs/deploy.md.
"""

import os

from celery import Celery

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")

app = Celery("lifeos")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()
