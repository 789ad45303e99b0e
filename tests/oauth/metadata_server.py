"""A real https server on loopback that serves client ID metadata documents (SPEC A-6, CIMD).

Its certificate comes from a throwaway authority (trustme) that the process
trusts through ``SSL_CERT_FILE``, exactly as a deployment trusts a private CA;
the product's fetcher runs unchanged but for ``CIMD_ALLOW_LOOPBACK``.
"""

from __future__ import annotations

import json
import ssl
import threading
import time
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import trustme


@dataclass
class Document:
    body: bytes
    content_type: str = "application/json"
    cache_control: str = "max-age=600"
    status: int = 200
    delay: float = 0.0
    location: str = ""


@dataclass
class MetadataServer:
    """``serve(path, metadata | Document)`` publishes a document; ``url(path)`` is its https URL."""

    port: int
    documents: dict[str, Document] = field(default_factory=dict)
    hits: dict[str, int] = field(default_factory=dict)

    def url(self, path: str) -> str:
        return f"https://localhost:{self.port}{path}"

    def serve(self, path: str, metadata: dict | Document, **overrides) -> str:
        document = metadata if isinstance(metadata, Document) else Document(json.dumps(metadata).encode())
        for name, value in overrides.items():
            setattr(document, name, value)
        self.documents[path] = document
        return self.url(path)


def start(tmp_path) -> tuple[MetadataServer, ThreadingHTTPServer, str]:
    authority = trustme.CA()
    certificate = authority.issue_cert("localhost", "127.0.0.1")
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    certificate.configure_cert(context)
    ca_file = tmp_path / "ca.pem"
    authority.cert_pem.write_to_path(str(ca_file))

    state = MetadataServer(port=0)

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self):
            state.hits[self.path] = state.hits.get(self.path, 0) + 1
            document = state.documents.get(self.path)
            if document is None:
                self.send_error(404)
                return
            time.sleep(document.delay)
            self.send_response(document.status)
            self.send_header("Content-Type", document.content_type)
            self.send_header("Cache-Control", document.cache_control)
            if document.location:
                self.send_header("Location", document.location)
            self.send_header("Content-Length", str(len(document.body)))
            self.end_headers()
            self.wfile.write(document.body)

        def log_message(self, *args):
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    server.socket = context.wrap_socket(server.socket, server_side=True)
    state.port = server.server_address[1]
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return state, server, str(ca_file)
