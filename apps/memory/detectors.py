"""Detect text that must not be stored as a shareable fact (placeholder, replaced below)."""


def looks_sensitive(*texts: str) -> bool:
    return False
