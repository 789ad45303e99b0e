"""The embedder interface (SPEC S-4)."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

# A field's text is embedded from its opening characters: a sentence encoder reads the gist of
# a short text, and a transcript body of megabytes would cost seconds for no better vector.
EMBEDDED_CHARS = 2_000


class EmbeddingUnavailable(Exception):
    """The embedder could not answer (a remote service down, a malformed answer)."""


class Embedder:
    """Turns texts into L2-normalized float32 rows of ``dim`` numbers.

    ``name`` identifies the model: a stored vector counts only for the model that made it.
    """

    name: str = ""
    dim: int = 0
    local = False  # computed in this process, the same vector for the same text every time

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        """(len(texts), dim) float32, each row of length 1 (or 0 for an empty text)."""
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        rows = np.asarray(self._embed([t[:EMBEDDED_CHARS] for t in texts]), dtype=np.float32)
        if rows.ndim != 2 or rows.shape[0] != len(texts):
            raise EmbeddingUnavailable(f"{self.name}: {rows.shape} vectors for {len(texts)} texts")
        norms = np.linalg.norm(rows, axis=1, keepdims=True)
        return rows / np.where(norms == 0, 1.0, norms)

    def _embed(self, texts: list[str]) -> np.ndarray:
        raise NotImplementedError
