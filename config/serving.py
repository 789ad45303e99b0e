"""Serve the ASGI application with several uvicorn worker processes (SPEC O-3).

    python -m config.serving --bind 127.0.0.1:8787 --workers 4

``make serve`` runs this with ``DEBUG=0``; production runs the same command
behind a load balancer (docs/deploy.md).

Why a launcher and not the ``uvicorn`` command: with more than one worker,
uvicorn 0.54 binds the listening socket itself as ``socket.socket(AF_INET)``,
whose ``proto`` is 0. asyncio only switches Nagle's algorithm off
(TCP_NODELAY) on connections whose socket says ``IPPROTO_TCP``, so every
accepted connection keeps Nagle on. uvicorn writes a response as two sends
(head, then body); on a keep-alive connection the body then waits for the
client's delayed ACK, about 40 ms, on every request (upstream
Kludex/uvicorn#3149). ``NoDelayHTTPProtocol`` sets TCP_NODELAY on each
accepted TCP connection itself, whatever created the listening socket.
Measured figures are in docs/deploy.md; ``--keep-nagle`` reproduces the
upstream behaviour for that comparison.

With ``--pin-cpus`` (or ``PIN_CPUS=1``) each worker process keeps all its
threads on one CPU (``pin_to_cpu``). A worker runs its event loop and its
database threads one at a time under the GIL; when they sit on different
CPUs every hand-off between them is a cross-CPU wake-up, which cost /mcp
about a quarter of its CPU per request (docs/performance.md).
"""

from __future__ import annotations

import argparse
import contextlib
import copy
import itertools
import logging
import os
import socket
import sys

from uvicorn.protocols.http.auto import AutoHTTPProtocol

# SPEC O-3 (home)
APP = "config.asgi:application"
PINNED_APP = "config.serving:pinned_application"  # a factory: uvicorn calls it once in each worker process
PROTOCOL = "config.serving:NoDelayHTTPProtocol"


def set_nodelay(transport) -> None:
    """Turn Nagle's algorithm off on the transport's socket, if it is TCP."""
    sock = transport.get_extra_info("socket")
    if sock is not None and sock.family in (socket.AF_INET, socket.AF_INET6):
        with contextlib.suppress(OSError):  # the peer may already be gone
            sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)


class NoDelayHTTPProtocol(AutoHTTPProtocol):  # type: ignore[misc, valid-type]
    """uvicorn's HTTP protocol (httptools if installed, else h11) with TCP_NODELAY on every connection."""

    def connection_made(self, transport) -> None:
        set_nodelay(transport)
        super().connection_made(transport)


_claims: list[socket.socket] = []  # held for the life of the process


def pin_to_cpu(namespace: str = "lifeos-serving") -> int | None:
    """Keep every thread of this process on one CPU; return it (``None``: not pinned).

    Serving processes on the host take CPUs in turn — the first free slot
    0, 1, 2 … on CPU ``slot mod n`` — so workers spread evenly, and two
    share a CPU only when there are more workers than CPUs. A slot is an
    abstract Unix socket name: taken by binding it, freed by the kernel when
    the process ends, so a worker uvicorn restarts takes its predecessor's
    place. Linux only; with a single CPU there is nothing to choose.
    """
    if not hasattr(os, "sched_setaffinity"):
        return None
    cpus = sorted(os.sched_getaffinity(0))
    if len(cpus) < 2:
        return None
    for slot in itertools.count():
        claim = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
        try:
            claim.bind(f"\0{namespace}-cpu-slot-{slot}")
        except OSError:
            claim.close()
            continue
        _claims.append(claim)
        cpu = cpus[slot % len(cpus)]
        for thread_id in os.listdir("/proc/self/task"):  # threads started before the pin as well
            with contextlib.suppress(OSError):  # a thread that has just ended
                os.sched_setaffinity(int(thread_id), {cpu})
        return cpu
    return None  # not reached: some slot is always free


def pinned_application():
    """The product for one worker process, pinned to its CPU first (``--pin-cpus``)."""
    pinned(APP)
    from config.asgi import application

    return application


def pinned(app: str) -> int | None:
    cpu = pin_to_cpu()
    logging.getLogger("uvicorn.error").info("worker %d serves %s on CPU %s", os.getpid(), app,
                                            "any" if cpu is None else cpu)
    return cpu


class RedactAccessLog(logging.Filter):
    """Access log lines carry the request path and query: redact secrets in them (SPEC A-4).

    uvicorn's access formatter needs the record's arguments intact, so only
    the path argument is rewritten.
    """

    def filter(self, record: logging.LogRecord) -> bool:
        from apps.common.logging import redact

        args = record.args
        if isinstance(args, tuple) and len(args) == 5 and isinstance(args[2], str):
            record.args = (*args[:2], redact(args[2]), *args[3:])
        return True


def log_config() -> dict:
    from uvicorn.config import LOGGING_CONFIG

    config = copy.deepcopy(LOGGING_CONFIG)
    config.setdefault("filters", {})["redact_access"] = {"()": "config.serving.RedactAccessLog"}
    config["handlers"]["access"]["filters"] = ["redact_access"]
    return config


def _parse(argv: list[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="python -m config.serving", description=__doc__.split("\n\n")[0])
    parser.add_argument("--bind", default=os.environ.get("BIND", "127.0.0.1:8787"),
                        help="HOST:PORT to listen on (default %(default)s, or $BIND)")
    parser.add_argument("--workers", type=int, default=int(os.environ.get("WEB_CONCURRENCY", "4")),
                        help="worker processes (default %(default)s, or $WEB_CONCURRENCY)")
    parser.add_argument("--timeout-keep-alive", type=int, default=int(os.environ.get("KEEP_ALIVE_SECONDS", "5")),
                        help="seconds an idle keep-alive connection is kept; behind a load balancer, "
                        "set it above the balancer's idle timeout (default %(default)s, or $KEEP_ALIVE_SECONDS)")
    parser.add_argument("--log-level", default=os.environ.get("UVICORN_LOG_LEVEL", "info"))
    parser.add_argument("--no-access-log", action="store_true", help="do not log each request")
    parser.add_argument("--pin-cpus", action="store_true", default=os.environ.get("PIN_CPUS", "") == "1",
                        help="keep each worker process on one CPU (or $PIN_CPUS=1); for hosts whose CPUs "
                        "serve this product alone, with at most one worker per CPU")
    parser.add_argument("--keep-nagle", action="store_true", help=argparse.SUPPRESS)  # benchmarks only
    args = parser.parse_args(argv)
    host, _, port = args.bind.rpartition(":")
    if not host or not port.isdigit():
        parser.error(f"--bind must be HOST:PORT, got {args.bind!r}")
    args.host, args.port = host.strip("[]"), int(port)
    if args.workers < 1:
        parser.error("--workers must be at least 1")
    return args


def main(argv: list[str] | None = None) -> None:
    import uvicorn

    args = _parse(sys.argv[1:] if argv is None else argv)
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
    if args.workers > 1 and not os.environ.get("REDIS_URL"):
        logging.getLogger("uvicorn.error").warning(
            "REDIS_URL is not set: each of the %d workers keeps its own cache (SPEC O-3 wants shared state)",
            args.workers,
        )
    uvicorn.run(
        PINNED_APP if args.pin_cpus else APP,
        factory=args.pin_cpus,
        host=args.host,
        port=args.port,
        workers=args.workers,
        # A dotted name, not the class: worker processes are spawned and import it themselves.
        http="auto" if args.keep_nagle else PROTOCOL,
        lifespan="off",  # Django's ASGI handler does not speak the lifespan protocol
        proxy_headers=True,  # trusts X-Forwarded-* only from $FORWARDED_ALLOW_IPS (default 127.0.0.1)
        server_header=False,
        timeout_keep_alive=args.timeout_keep_alive,
        log_level=args.log_level,
        log_config=log_config(),
        access_log=not args.no_access_log,
    )


if __name__ == "__main__":
    main()
