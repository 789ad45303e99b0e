"""The Celery app. Broker and schedule come from settings (SPEC J-1)."""

import os

from celery import Celery

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")

app = Celery("lifeos")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()
