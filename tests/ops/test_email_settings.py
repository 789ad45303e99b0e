"""E-mail is configured by the environment only; the local default writes each message to a file (SPEC W-7, O-2)."""

from __future__ import annotations

import io
from datetime import timedelta

import pytest
from django.core.exceptions import ImproperlyConfigured
from django.core.management import call_command

from apps.common import clock
from apps.consent.services import notice_settings_save, proposal_submit
from config.env import VAR_DIR
from tests.consent.factories import make_connection

PRODUCTION = {"PUBLIC_BASE_URL": "https://memory.example.com", "SECRET_KEY": "x" * 60,
              "ALLOWED_HOSTS": "memory.example.com"}


# SPEC W-7, O-2: without EMAIL_HOST, messages go to files under var/mail (Django's file backend).
def test_local_default_writes_files_under_var(settings_for):
    local = settings_for({})
    assert local["EMAIL_BACKEND"] == "django.core.mail.backends.filebased.EmailBackend"
    assert str(local["EMAIL_FILE_PATH"]) == str(VAR_DIR / "mail")
    assert local["DEFAULT_FROM_EMAIL"] == "LifeOS Memory <noreply@localhost>"


# SPEC W-7, O-2: EMAIL_HOST switches to SMTP, STARTTLS on the submission port, TLS on 465, never both.
def test_smtp_from_the_environment(settings_for):
    smtp = settings_for({**PRODUCTION, "EMAIL_HOST": "smtp.example.com", "EMAIL_HOST_USER": "lifeos",
                         "EMAIL_HOST_PASSWORD": "pw"})
    assert smtp["EMAIL_BACKEND"] == "django.core.mail.backends.smtp.EmailBackend"
    assert (smtp["EMAIL_HOST"], smtp["EMAIL_PORT"], smtp["EMAIL_USE_TLS"], smtp["EMAIL_USE_SSL"]) == (
        "smtp.example.com", 587, True, False)
    assert smtp["DEFAULT_FROM_EMAIL"] == "LifeOS Memory <noreply@memory.example.com>"
    ssl = settings_for({"EMAIL_HOST": "smtp.example.com", "EMAIL_PORT": "465"})
    assert (ssl["EMAIL_USE_TLS"], ssl["EMAIL_USE_SSL"]) == (False, True)
    plain = settings_for({"EMAIL_HOST": "127.0.0.1", "EMAIL_PORT": "1025", "DEFAULT_FROM_EMAIL": "me@example.org"})
    assert (plain["EMAIL_USE_TLS"], plain["EMAIL_USE_SSL"], plain["DEFAULT_FROM_EMAIL"]) == (False, False,
                                                                                              "me@example.org")
    with pytest.raises(ImproperlyConfigured, match="EMAIL_USE_TLS"):
        settings_for({"EMAIL_HOST": "smtp.example.com", "EMAIL_USE_TLS": "1", "EMAIL_USE_SSL": "1"})
    with pytest.raises(ImproperlyConfigured, match="EMAIL_TIMEOUT"):
        settings_for({"EMAIL_HOST": "smtp.example.com", "EMAIL_TIMEOUT": "0"})


# SPEC W-7, J-1: `manage.py send_notices` sends what is due, to a file in the local default, and once only.
@pytest.mark.django_db
def test_send_notices_writes_the_message_to_a_file(user, settings, tmp_path, frozen_clock):
    settings.EMAIL_BACKEND = "django.core.mail.backends.filebased.EmailBackend"
    settings.EMAIL_FILE_PATH = tmp_path
    user.email = "alice@example.com"
    user.save(update_fields=["email"])
    notice_settings_save(user=user, digest="daily", expiry_notice=True, email=user.email, language="en")
    proposal_submit(connection=make_connection(user), arguments={
        "op": "add", "category": "goals", "label": "Run a marathon", "value": "In spring"})
    out = io.StringIO()
    call_command("send_notices", stdout=out)
    assert "digests: 1 sent" in out.getvalue()
    (written,) = tmp_path.iterdir()
    text = written.read_text()
    assert "1 suggestion is waiting for you" in text and "List-Unsubscribe-Post" in text
    assert "Run a marathon" not in text and "In spring" not in text
    clock.advance(timedelta(hours=1))
    call_command("send_notices", stdout=out)
    assert len(list(tmp_path.iterdir())) == 1
