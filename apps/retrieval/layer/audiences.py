"""Audiences and their fixed caps (SPEC R-4, R-11).

Design notes: docs/design.md.
"""

from __future__ import annotations

INTERNAL = "internal"
EXTERNAL = "external"
AUDIENCES = (INTERNAL, EXTERNAL)

# SPEC R-11: the only types that may ever be published externally.
# SPEC R-11 (home)
EXTERNALLY_PUBLISHABLE = frozenset({"episode", "calendar", "todo", "voice_memo", "contact"})

# SPEC R-11: one scope per externally published type. The MCP consent side
# offers these; a token reaches a type only when it carries the type's scope.
EXTERNAL_SCOPES = {
    "episode": "memory:episode:read",
    "calendar": "memory:calendar:read",
    "todo": "memory:todo:read",
    "voice_memo": "memory:voice_memo:read",
    "contact": "memory:contact:read",
}
assert set(EXTERNAL_SCOPES) == EXTERNALLY_PUBLISHABLE
