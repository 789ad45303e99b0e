"""The one place configuration is read from the environment (SPEC O-2, I-1)."""

from __future__ import annotations

import builtins
import os
import secrets
from ipaddress import ip_address, ip_network
from pathlib import Path
from typing import overload
from urllib.parse import urlsplit

from django.core.exceptions import ImproperlyConfigured

BASE_DIR = Path(__file__).resolve().parent.parent
VAR_DIR = BASE_DIR / "var"

_TRUE = {"1", "true", "yes", "on"}
_FALSE = {"0", "false", "no", "off", ""}
DEFAULT_PORTS = {"http": 80, "https": 443}


def _is_loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ip_address(host).is_loopback
    except ValueError:
        return False


# SPEC O-2 (home)
class Env:
    """Typed access to the environment with the product's defaults.

    "Local" means the product is reached on a loopback origin (the local
    default, ``http://127.0.0.1:8787``); anything else is treated as
    production and gets production-safe defaults.
    """

    def __init__(self, environ: os._Environ | dict[str, str] = os.environ) -> None:
        self.environ = environ

    # Inside this class ``str``, ``bool`` and ``list`` name the methods below; annotations say ``builtins.``.
    @overload
    def str(self, name: builtins.str, default: builtins.str) -> builtins.str: ...

    @overload
    def str(self, name: builtins.str, default: None = None) -> builtins.str | None: ...

    def str(self, name: builtins.str, default: builtins.str | None = None) -> builtins.str | None:
        value = self.environ.get(name)
        return default if value is None or value == "" else value

    def bool(self, name: builtins.str, default: builtins.bool) -> builtins.bool:
        value = self.environ.get(name)
        if value is None:
            return default
        lowered = value.strip().lower()
        if lowered in _TRUE:
            return True
        if lowered in _FALSE:
            return False
        raise ImproperlyConfigured(f"{name} must be a boolean (1/0, true/false), got {value!r}")

    def int(self, name: builtins.str, default: builtins.int) -> builtins.int:
        value = self.environ.get(name)
        if value is None or value == "":
            return default
        try:
            return int(value)
        except ValueError as exc:
            raise ImproperlyConfigured(f"{name} must be an integer, got {value!r}") from exc

    def list(self, name: builtins.str, default: builtins.list[builtins.str]) -> builtins.list[builtins.str]:
        value = self.environ.get(name)
        if value is None:
            return default
        return [item.strip() for item in value.split(",") if item.strip()]

    def networks(self, name: builtins.str) -> builtins.list[builtins.str]:
        """A comma-separated list of CIDR networks, each checked at start-up."""
        networks = self.list(name, [])
        for network in networks:
            try:
                ip_network(network, strict=False)
            except ValueError as exc:
                raise ImproperlyConfigured(f"{name}: {network!r} is not a network (CIDR)") from exc
        return networks

    @property
    def public_base_url(self) -> builtins.str:
        """The origin, spelled as clients normalise a URL: lowercase scheme and host, no default port.

        The ``/mcp`` resource is compared as a plain string with the resource
        indicator a client sends, and MCP clients send the URL normalised; any
        other spelling (``https://Memory.example.com:443``, a newline left by a
        secret file) would have every token request refused.
        """
        url = self.str("PUBLIC_BASE_URL", "http://127.0.0.1:8787").strip().rstrip("/")
        parts = urlsplit(url)
        try:
            port = parts.port
        except ValueError:  # not a number, or out of range
            port = -1
        if (
            parts.scheme not in DEFAULT_PORTS or not parts.hostname or parts.path or port == -1
            or any(char in url for char in "?#@") or any(char.isspace() for char in url)
        ):
            raise ImproperlyConfigured("PUBLIC_BASE_URL must be an origin such as https://memory.example.com")
        netloc = parts.netloc.lower().removesuffix(":")
        if port == DEFAULT_PORTS[parts.scheme]:
            netloc = netloc.rsplit(":", 1)[0]
        return f"{parts.scheme}://{netloc}"

    @property
    def is_local(self) -> builtins.bool:
        return _is_loopback(urlsplit(self.public_base_url).hostname or "")

    def secret_key(self, *, local: builtins.bool) -> builtins.str:
        value = self.str("SECRET_KEY")
        if value:
            return value
        if not local:
            raise ImproperlyConfigured("SECRET_KEY is required when PUBLIC_BASE_URL is not a loopback origin")
        # Generated once and kept, so sessions and signed cursors survive restarts.
        key_file = VAR_DIR / "secret_key"
        if not key_file.exists():
            VAR_DIR.mkdir(parents=True, exist_ok=True)
            key_file.write_text(secrets.token_urlsafe(50))
            key_file.chmod(0o600)
        return key_file.read_text().strip()


env = Env()
