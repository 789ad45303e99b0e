"""The same endpoint under an ASGI server (uvicorn), as production runs it (SPEC M-1, O-3)."""

from __future__ import annotations

import socket
import threading
import time

import pytest
import uvicorn

from tests.mcp_server.conftest import McpClient


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@pytest.fixture
def asgi_url(transactional_db):
    from config.asgi import application

    port = _free_port()
    server = uvicorn.Server(uvicorn.Config(application, host="127.0.0.1", port=port, log_level="warning",
                                           lifespan="off"))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 10
    while not server.started:
        assert time.monotonic() < deadline, "uvicorn did not start"
        time.sleep(0.05)
    yield f"http://127.0.0.1:{port}/mcp"
    server.should_exit = True
    thread.join(timeout=10)


# SPEC M-1: both protocol eras, read and page, through uvicorn.
@pytest.mark.parametrize("mode", ["auto", "legacy"])
def test_read_under_asgi(asgi_url, shared_profile, mode):
    _, facts, token = shared_profile
    client = McpClient(asgi_url, token, mode)
    result = client.call("get_user_context")
    assert [fact["id"] for fact in result.structured_content["facts"]] == [str(fact.id) for fact in facts]
    page = client.call("read_user_context_page", {"offset": 1, "version": result.structured_content["version"]})
    assert len(page.structured_content["facts"]) == 2
    with pytest.raises(Exception, match="invalid"):
        McpClient(asgi_url, "wrong", mode).call("get_user_context")
