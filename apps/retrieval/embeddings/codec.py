"""Vectors stored compactly: int8 components with one float32 scale (516 bytes for 512 numbers).

Design notes: docs/design.md.
"""

from __future__ import annotations

import numpy as np

HEADER = 4  # the float32 scale


def pack(vector: np.ndarray) -> bytes:
    peak = float(np.max(np.abs(vector))) if vector.size else 0.0
    scale = peak / 127.0 if peak else 1.0
    quantized = np.clip(np.rint(vector / scale), -127, 127).astype(np.int8)
    return np.float32(scale).tobytes() + quantized.tobytes()


def unpack_many(blobs: list[bytes], dim: int) -> tuple[np.ndarray, np.ndarray]:
    """(int8 matrix of shape (n, dim), float32 scales of shape (n,)) of the stored vectors."""
    raw = np.frombuffer(b"".join(bytes(b) for b in blobs), dtype=np.uint8).reshape(len(blobs), HEADER + dim)
    scales = raw[:, :HEADER].copy().view(np.float32).reshape(-1)
    return raw[:, HEADER:].view(np.int8), scales


def similarities(query: np.ndarray, matrix: np.ndarray, scales: np.ndarray) -> np.ndarray:
    """Cosine similarity of the unit ``query`` with every stored unit vector."""
    return (matrix.astype(np.float32) @ query.astype(np.float32)) * scales
