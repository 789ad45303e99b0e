"""Client ID Metadata Documents (SPEC A-6; draft-ietf-oauth-client-id-metadata-document).

Design notes: docs/design.md.
"""

from __future__ import annotations

import ipaddress
import ssl
from typing import Any
from urllib.parse import urlsplit

import urllib3
from django.conf import settings
from oauth2_provider import cimd
from oauth2_provider.settings import oauth2_settings

from apps.oauth.registration import PUBLIC_AUTH_METHOD, MetadataRefused, assistant_metadata


def verified_host(application: Any) -> str | None:
    """The host that vouches for the client: its metadata document's, for a CIMD client (SPEC A-7); else ``None``."""
    if application.registration_source != application.RegistrationSource.CIMD:
        return None
    return urlsplit(application.client_id).hostname


class ProductMetadataFetcher(cimd.SafeMetadataFetcher):
    def fetch(self, client_id: str) -> Any:
        if settings.CIMD_ALLOW_LOOPBACK and _names_loopback(client_id):
            metadata, max_age = self._fetch_from_loopback(client_id)
        else:
            metadata, max_age = super().fetch(client_id)
        # The toolkit takes only public clients from a document (the draft forbids shared secrets).
        metadata.setdefault("token_endpoint_auth_method", PUBLIC_AUTH_METHOD)
        try:
            assistant_metadata({key: value for key, value in metadata.items() if key != "client_id"})
        except MetadataRefused as refused:
            raise cimd.CIMDError(f"{refused.error}: {refused.description}") from None
        return metadata, max_age

    def _fetch_from_loopback(self, client_id: str) -> Any:
        """The same bounded fetch (verified TLS, no redirects, time and size caps), to this machine only."""
        parts = urlsplit(client_id)
        if parts.scheme != "https":
            raise cimd.CIMDError("client_id URL must use the https scheme")
        timeout = oauth2_settings.CIMD_FETCH_TIMEOUT_SECONDS
        pool = urllib3.HTTPSConnectionPool(
            host="127.0.0.1", port=parts.port or 443, retries=False, maxsize=1,
            timeout=urllib3.Timeout(total=timeout), ssl_context=ssl.create_default_context(),
            server_hostname=parts.hostname,
        )
        try:
            response = pool.urlopen("GET", parts.path + (f"?{parts.query}" if parts.query else ""),
                                    headers={"Host": parts.netloc, "Accept": "application/json"},
                                    redirect=False, preload_content=False)
            try:
                return self._read_document(response)
            finally:
                response.release_conn()
        except urllib3.exceptions.HTTPError as error:
            raise cimd.CIMDError(f"could not fetch client_id document: {error}") from None
        finally:
            pool.close()


def _names_loopback(client_id: str) -> bool:
    host = urlsplit(client_id).hostname or ""
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False
