"""Django's Redis cache backend, with one Redis client per connection pool.

Design notes: docs/performance.md (How the hot paths are built).
"""

from __future__ import annotations

import threading
from typing import Any

from django.core.cache.backends.redis import RedisCache as DjangoRedisCache
from django.core.cache.backends.redis import RedisCacheClient

try:
    from redis.exceptions import RedisError

    CACHE_ERRORS: tuple[type[BaseException], ...] = (OSError, RedisError)
except ImportError:  # no Redis client installed: only local caches
    CACHE_ERRORS = (OSError,)
"""What a cache command raises when the shared cache cannot be reached."""


class _ClientPerPool(RedisCacheClient):
    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._clients: dict[int, object] = {}
        self._lock = threading.Lock()

    def get_client(self, key: Any = None, *, write: bool = False) -> Any:
        index = self._get_connection_pool_index(write)
        client = self._clients.get(index)
        if client is None:
            with self._lock:
                client = self._clients.get(index)
                if client is None:
                    if index not in self._pools:
                        self._pools[index] = self._pool_class.from_url(self._servers[index], **self._pool_options)
                    client = self._clients[index] = self._client(connection_pool=self._pools[index])
        return client


class RedisCache(DjangoRedisCache):
    def __init__(self, server: str, params: dict[str, Any]) -> None:
        super().__init__(server, params)
        self._class = _ClientPerPool
