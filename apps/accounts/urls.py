from django.contrib.auth import views as auth_views
from django.urls import path

from apps.accounts import security
from apps.accounts.views import LoginView

app_name = "accounts"

urlpatterns = [
    path("accounts/login/", LoginView.as_view(), name="login"),
    path("accounts/logout/", auth_views.LogoutView.as_view(), name="logout"),
    path("accounts/second-factor/", security.SecondFactorView.as_view(), name="second-factor"),
    path("me/security/", security.SecurityView.as_view(), name="security"),
    path("me/security/authenticator/", security.AuthenticatorView.as_view(), name="authenticator"),
    path("me/security/authenticator/remove/", security.AuthenticatorRemoveView.as_view(),
         name="authenticator-remove"),
    path("me/security/recovery-codes/", security.RecoveryCodesView.as_view(), name="recovery-codes"),
]
