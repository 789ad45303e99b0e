"""Embeddings served over HTTP by an OpenAI-compatible ``/embeddings`` endpoint (SPEC S-4).

Design notes: docs/design.md.
"""

from __future__ import annotations

import httpx
import numpy as np

from apps.retrieval.embeddings.base import Embedder, EmbeddingUnavailable

BATCH = 64  # texts per request


class HttpEmbedder(Embedder):
    def __init__(self, url: str, model: str, dim: int | str, api_key: str = "", timeout: float | str = 5.0) -> None:
        if not url or not model:
            raise ValueError("SEARCH_EMBEDDINGS_URL and SEARCH_EMBEDDINGS_MODEL must both be set")
        self.url = url.rstrip("/") + "/embeddings"
        self.model, self.dim, self.timeout = model, int(dim), float(timeout)
        self.name = f"http:{model}"
        self._headers = {"Authorization": f"Bearer {api_key}"} if api_key else {}
        self._client: httpx.Client | None = None

    def _http(self) -> httpx.Client:
        if self._client is None:
            self._client = httpx.Client(timeout=self.timeout, headers=self._headers)
        return self._client

    def _embed(self, texts: list[str]) -> np.ndarray:
        return np.vstack([self._request(texts[i:i + BATCH]) for i in range(0, len(texts), BATCH)])

    def _request(self, texts: list[str]) -> np.ndarray:
        try:
            response = self._http().post(self.url, json={"model": self.model, "input": texts})
            response.raise_for_status()
            data = sorted(response.json()["data"], key=lambda item: item["index"])
            rows = np.asarray([item["embedding"] for item in data], dtype=np.float32)
        except (httpx.HTTPError, ValueError, KeyError, TypeError) as exc:
            raise EmbeddingUnavailable(f"{self.url}: {exc.__class__.__name__}: {exc}") from None
        if rows.shape != (len(texts), self.dim):
            raise EmbeddingUnavailable(f"{self.url}: {rows.shape} vectors, expected ({len(texts)}, {self.dim})")
        return rows
