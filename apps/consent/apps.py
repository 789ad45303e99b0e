from django.apps import AppConfig


class ConsentConfig(AppConfig):
    name = "apps.consent"
    label = "consent"
