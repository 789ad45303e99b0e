"""Serve any ASGI app exactly as ``python -m config.serving`` serves the product.

    python -m bench.serve.launch APP --bind 127.0.0.1:PORT --workers N [--lifespan on|off] [--pin-cpus]

The benchmark compares the product with other ASGI apps; for the comparison
to mean anything each must run on the same uvicorn stack: the same HTTP
protocol class (``config.serving.NoDelayHTTPProtocol``, httptools with
TCP_NODELAY), worker count, keep-alive, proxy headers, logging and no access
log. The product itself is started with ``python -m config.serving``. Only the app and
whether it speaks the lifespan protocol differ (the SDK's Starlette app needs
its lifespan to run its session manager; Django's handler does not speak it).
With ``--pin-cpus`` each worker is pinned as the product's are
(``config.serving.pin_to_cpu``), through a factory uvicorn calls in each worker.
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

BASE_DIR = Path(__file__).resolve().parents[2]
if str(BASE_DIR) not in sys.path:
    sys.path.insert(0, str(BASE_DIR))

_TARGET = "BENCH_SERVE_APP"  # the app the factory loads, handed to the spawned workers


def pinned_target():
    """The target app for one worker process, pinned to its CPU first."""
    from uvicorn.importer import import_from_string

    from config.serving import pinned

    pinned(os.environ[_TARGET])
    return import_from_string(os.environ[_TARGET])


def main() -> None:
    import uvicorn

    from config.serving import PROTOCOL, log_config

    parser = argparse.ArgumentParser()
    parser.add_argument("app", help="module:attribute of the ASGI app")
    parser.add_argument("--bind", required=True)
    parser.add_argument("--workers", type=int, default=1)
    parser.add_argument("--lifespan", choices=("on", "off"), default="off")
    parser.add_argument("--pin-cpus", action="store_true")
    args = parser.parse_args()
    host, _, port = args.bind.rpartition(":")
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
    os.environ[_TARGET] = args.app
    uvicorn.run(
        "bench.serve.launch:pinned_target" if args.pin_cpus else args.app,
        factory=args.pin_cpus,
        host=host,
        port=int(port),
        workers=args.workers,
        http=PROTOCOL,
        lifespan=args.lifespan,
        proxy_headers=True,
        server_header=False,
        timeout_keep_alive=5,
        log_level="warning",
        log_config=log_config(),
        access_log=False,
    )


if __name__ == "__main__":
    main()
