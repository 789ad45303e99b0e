from django.apps import AppConfig


class OauthConfig(AppConfig):
    name = "apps.oauth"
    label = "oauth"
