from django.apps import AppConfig


class AccountsConfig(AppConfig):
    name = "apps.accounts"
    label = "accounts"

    def ready(self) -> None:
        from django.contrib.auth.signals import user_logged_in

        from apps.accounts.middleware import on_logged_in

        user_logged_in.connect(on_logged_in, dispatch_uid="accounts.second_factor_remember")
