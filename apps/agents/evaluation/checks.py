"""Field violations: every place an answer shows must be a field the call was allowed to read (SPEC R-5)."""

from __future__ import annotations

from collections.abc import Iterable

from apps.retrieval.layer import pointers
from apps.retrieval.layer.access import Access, view


def _pattern(path: str) -> str:
    tokens = pointers.split(path)
    return pointers.join("*" if token.isdigit() else token for token in tokens)


def _paths(value: object, prefix: str = "") -> list[str]:
    """Every concrete path of a JSON value down to its scalars (and empty containers)."""
    if isinstance(value, dict) and value:
        return [p for key, item in value.items() for p in _paths(item, pointers.child(prefix, key))]
    if isinstance(value, list) and value:
        return [p for i, item in enumerate(value) for p in _paths(item, pointers.child(prefix, i))]
    return [prefix] if prefix else []


def _allowed(leaves: Iterable[str], path: str) -> bool:
    """A shown path is allowed when it is a readable leaf or lies above one (a container)."""
    pattern = _pattern(path)
    return any(leaf == pattern or leaf.startswith(pattern + "/") for leaf in leaves)


def violations(access: Access, operation: str, answer: dict) -> list[str]:
    """The places in ``answer`` that ``access`` did not allow (empty when it is clean)."""
    found: list[str] = []

    def check(resource_type: str, paths: Iterable[str]) -> None:
        v = view(access, resource_type)
        for path in paths:
            if v is None or not _allowed(v.leaves, path):
                found.append(f"{resource_type}{path}")

    if operation == "read":
        paths = _paths(answer["data"]) if "data" in answer else [f["path"] for f in answer["fragments"]]
        check(answer["type"], paths)
    elif operation == "list" and "items" in answer:
        for item in answer["items"]:
            check(answer["resource"], _paths(item["data"]))
    elif operation == "search":
        for hit in answer["hits"]:
            v = view(access, hit["type"])
            declaration = v.resource.declaration if v else None
            shown = [hit["snippet"]["path"]]
            if "title" in hit and declaration is not None:
                shown.append(declaration.title)
            shown += [f"/{name}" for name in ("status", "updated_at") if name in hit]
            check(hit["type"], shown)
    return found
