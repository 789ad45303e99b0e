"""Production settings pass `manage.py check --deploy` (SPEC O-2, I-1)."""

from __future__ import annotations

import subprocess
from concurrent.futures import ThreadPoolExecutor

import pytest

from tests.ops.conftest import BASE_DIR, PRODUCTION_ENV, PYTHON, subprocess_env

pytestmark = pytest.mark.production

# A production environment with one piece weakened or missing, and the check that must catch it.
WEAKENED = {
    "debug-on": ({"DEBUG": "1"}, "security.W018"),
    "no-hsts": ({"SECURE_HSTS_SECONDS": "0"}, "security.W004"),
    "no-redis": ({"REDIS_URL": None}, "ops.W002"),
    "no-bucket": ({"AWS_STORAGE_BUCKET_NAME": None}, "ops.W003"),
    "no-database-url": ({"DATABASE_URL": None}, "ops.W001"),
    "plain-http": ({"PUBLIC_BASE_URL": "http://memory.example.com"}, "ops.W004"),
    "no-secret-key": ({"SECRET_KEY": None}, "SECRET_KEY is required"),
}


def _check_deploy(environ: dict[str, str | None]) -> subprocess.CompletedProcess:
    environ = {name: value for name, value in environ.items() if value is not None}
    return subprocess.run(
        [PYTHON, "manage.py", "check", "--deploy", "--fail-level", "WARNING"],
        cwd=BASE_DIR, env=subprocess_env(environ), capture_output=True, text=True, timeout=180,
    )


@pytest.fixture(scope="module")
def results():
    """Every environment checked once, in parallel: each is a fresh Django process."""
    environments = {"production": PRODUCTION_ENV} | {
        name: {**PRODUCTION_ENV, **change} for name, (change, _) in WEAKENED.items()
    }
    with ThreadPoolExecutor(max_workers=4) as pool:
        futures = {name: pool.submit(_check_deploy, environ) for name, environ in environments.items()}
        return {name: future.result() for name, future in futures.items()}


# SPEC O-2, I-1: the documented production environment raises no warning and no error.
def test_production_environment_passes_check_deploy(results):
    result = results["production"]
    assert result.returncode == 0, result.stdout + result.stderr
    assert "System check identified no issues" in result.stdout


# SPEC O-2, O-3: the check catches a production environment that lacks a required piece
# (and so proves it can fail).
@pytest.mark.parametrize("name", sorted(WEAKENED))
def test_check_deploy_flags_a_weakened_environment(results, name):
    result, (_, expected) = results[name], WEAKENED[name]
    assert result.returncode != 0
    assert expected in result.stdout + result.stderr


# SPEC I-1, A-6: PUBLIC_BASE_URL is the origin as clients spell it. The /mcp resource is compared with the
# resource indicator a client sends as a plain string, and MCP clients send the URL normalised (lowercase
# scheme and host, no default port): any other spelling — or a newline left by a secret file — would have
# every token request refused while discovery looked fine.
@pytest.mark.parametrize(("given", "origin"), [
    ("https://memory.example.com", "https://memory.example.com"),
    ("https://memory.example.com/", "https://memory.example.com"),
    ("https://memory.example.com\n", "https://memory.example.com"),
    ("  https://memory.example.com  ", "https://memory.example.com"),
    ("HTTPS://Memory.Example.COM", "https://memory.example.com"),
    ("https://memory.example.com:443", "https://memory.example.com"),
    ("https://memory.example.com:", "https://memory.example.com"),
    ("https://memory.example.com:8443/", "https://memory.example.com:8443"),
    ("http://127.0.0.1:80", "http://127.0.0.1"),
    ("http://[::1]:8787", "http://[::1]:8787"),
])
def test_public_base_url_is_read_as_the_origin_clients_send(settings_for, given, origin):
    names = settings_for({**PRODUCTION_ENV, "PUBLIC_BASE_URL": given})
    assert names["PUBLIC_BASE_URL"] == origin
    assert names["MCP_RESOURCE_URL"] == origin + "/mcp"
    assert names["OAUTH2_PROVIDER"]["OAUTH2_PROTECTED_RESOURCE_IDENTIFIER"] == origin + "/mcp"


# SPEC I-1: anything that is not an origin is refused at start-up, never served with a broken resource.
@pytest.mark.parametrize("given", [
    "https://memory.example.com/mcp",
    "https://memory.example.com?",
    "https://memory.example.com?x=1",
    "https://memory.example.com#",
    "https://memory.example.com#top",
    "https://admin:secret@memory.example.com",
    "https://memory.example.com:99999",
    "https://memory.example.com:https",
    "https://memory example.com",
    "ftp://memory.example.com",
    "memory.example.com",
])
def test_public_base_url_that_is_not_an_origin_is_refused(settings_for, given):
    from django.core.exceptions import ImproperlyConfigured

    with pytest.raises(ImproperlyConfigured, match="PUBLIC_BASE_URL"):
        settings_for({**PRODUCTION_ENV, "PUBLIC_BASE_URL": given})
