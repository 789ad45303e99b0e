"""A real SMTP server on a loopback port (aiosmtpd), and Django pointed at it, for the e-mail notices (SPEC W-7)."""

from __future__ import annotations

import email
import email.policy
import logging
import socket
import threading
from contextlib import contextmanager
from email.message import EmailMessage

from aiosmtpd.controller import Controller


class Inbox:
    """What the server accepted: each message parsed, with who it was for."""

    def __init__(self) -> None:
        self.messages: list[EmailMessage] = []
        self.recipients: list[list[str]] = []
        self.refuse = False  # answer every message with a permanent error
        self._lock = threading.Lock()

    async def handle_DATA(self, server, session, envelope):  # aiosmtpd's hook name
        if self.refuse:
            return "554 5.7.1 refused for the test"
        parsed = email.message_from_bytes(envelope.original_content or envelope.content, policy=email.policy.default)
        with self._lock:
            self.messages.append(parsed)  # type: ignore[arg-type]
            self.recipients.append(list(envelope.rcpt_tos))
        return "250 OK"

    def clear(self) -> None:
        with self._lock:
            self.messages.clear()
            self.recipients.clear()


def body(message: EmailMessage) -> str:
    part = message.get_body(preferencelist=("plain",))
    assert part is not None
    return part.get_content()


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


@contextmanager
def serving(settings):
    """An SMTP server on 127.0.0.1, and the product's SMTP settings (pytest-django's ``settings``) aimed at it."""
    logging.getLogger("mail.log").setLevel(logging.WARNING)  # aiosmtpd logs every SMTP command at INFO
    inbox = Inbox()
    port = free_port()
    controller = Controller(inbox, hostname="127.0.0.1", port=port)
    controller.start()
    settings.EMAIL_BACKEND = "django.core.mail.backends.smtp.EmailBackend"
    settings.EMAIL_HOST, settings.EMAIL_PORT = "127.0.0.1", port
    settings.EMAIL_USE_TLS = settings.EMAIL_USE_SSL = False
    settings.EMAIL_HOST_USER = settings.EMAIL_HOST_PASSWORD = ""
    settings.EMAIL_TIMEOUT = 5
    try:
        yield inbox
    finally:
        controller.stop()
