"""JSON Pointer (RFC 6901) paths, and the ``*`` wildcard declarations use for array items.

Design notes: docs/design.md.
"""

from __future__ import annotations

WILDCARD = "*"


def escape(token: str | int) -> str:
    return str(token).replace("~", "~0").replace("/", "~1")


def unescape(token: str) -> str:
    return token.replace("~1", "/").replace("~0", "~")


def join(tokens) -> str:
    return "".join("/" + escape(token) for token in tokens)


def split(pointer: str) -> tuple[str, ...]:
    """The unescaped tokens of ``pointer``; ``ValueError`` if it is not a pointer."""
    if pointer == "":
        return ()
    if not pointer.startswith("/"):
        raise ValueError(f"{pointer!r} does not start with '/'")
    tokens = tuple(unescape(token) for token in pointer[1:].split("/"))
    for token in tokens:
        if "~" in token.replace("~0", "").replace("~1", ""):
            raise ValueError(f"{pointer!r} has an invalid escape")
    return tokens


def ancestors(pattern: str) -> list[str]:
    """``/a/*/b`` → ``["/a", "/a/*"]`` (outermost first, the path itself excluded)."""
    tokens = split(pattern)
    return [join(tokens[:end]) for end in range(1, len(tokens))]


def covers(granted: str, pattern: str) -> bool:
    """Whether granting ``granted`` grants ``pattern``: the same path or one of its ancestors."""
    return pattern == granted or pattern.startswith(granted + "/")


def child(pointer: str, token: str | int) -> str:
    return f"{pointer}/{escape(token)}"


def texts_at(doc: dict, pattern: str) -> list[tuple[str, str]]:
    """(concrete path, string) for every string at ``pattern`` in ``doc``."""
    found: list[tuple[tuple[str | int, ...], object]] = [((), doc)]
    for token in split(pattern):
        step: list[tuple[tuple[str | int, ...], object]] = []
        for tokens, value in found:
            if token == WILDCARD and isinstance(value, list):
                step += [((*tokens, i), item) for i, item in enumerate(value)]
            elif isinstance(value, dict) and token in value:
                step.append(((*tokens, token), value[token]))
        found = step
    return [(join(tokens), value) for tokens, value in found if isinstance(value, str) and value]
