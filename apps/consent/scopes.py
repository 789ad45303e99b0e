"""The assistant scopes and the rules that tie them together (SPEC A-5, R-11)."""

from __future__ import annotations

from django.utils.translation import gettext_lazy as _

# SPEC A-5 (home)
PROFILE_READ = "profile:read"
PROFILE_PROPOSE = "profile:propose"
PROFILE_CORRECT = "profile:correct"
CONTEXT_SEARCH = "context:search"

# SPEC R-11: one read scope per memory resource type that may ever be published
# externally. The names are the retrieval layer's (``audiences.EXTERNAL_SCOPES``).
MEMORY_EPISODE_READ = "memory:episode:read"
MEMORY_CALENDAR_READ = "memory:calendar:read"
MEMORY_TODO_READ = "memory:todo:read"
MEMORY_VOICE_MEMO_READ = "memory:voice_memo:read"
MEMORY_CONTACT_READ = "memory:contact:read"
MEMORY_SCOPES = (
    MEMORY_EPISODE_READ,
    MEMORY_CALENDAR_READ,
    MEMORY_TODO_READ,
    MEMORY_VOICE_MEMO_READ,
    MEMORY_CONTACT_READ,
)

# In plain words, for the consent and connection pages (SPEC A-7).
DESCRIPTIONS = {
    PROFILE_READ: _("Read the facts you choose to share with it"),
    PROFILE_PROPOSE: _("Suggest new memories, which you review before anything is saved"),
    PROFILE_CORRECT: _("Suggest corrections or archiving of facts you shared, which you review first"),
    CONTEXT_SEARCH: _("Search the facts you shared with it"),
    MEMORY_EPISODE_READ: _(
        "List, search and read your meetings and conversations: titles, summaries, topics, people (never transcripts)"
    ),
    MEMORY_CALENDAR_READ: _("List, search and read your calendar events (without their notes)"),
    MEMORY_TODO_READ: _("List, search and read your to-dos (without their notes)"),
    MEMORY_VOICE_MEMO_READ: _("List, search and read your voice memos, including their text"),
    MEMORY_CONTACT_READ: _("List, search and read your contacts (without your notes about them)"),
}
ALL = tuple(DESCRIPTIONS)

# Offered only when the assistant asked for them, and never ticked in advance:
# each reaches far more than the facts the person picks one by one (SPEC ).
UNTICKED_BY_DEFAULT = frozenset({CONTEXT_SEARCH, *MEMORY_SCOPES})
# SPEC A-8: the base scope an assistant is challenged to ask for: reading, and suggesting what the person
# reviews — what every assistant is for. Search and memory reads are asked for by name.
BASE = (PROFILE_READ, PROFILE_PROPOSE, PROFILE_CORRECT)


def scope_errors(scopes: set[str]) -> list[str]:
    """Why this set of scopes cannot be granted (empty when it can)."""
    errors = [f"unknown scope {name!r}" for name in sorted(scopes - set(ALL))]
    if CONTEXT_SEARCH in scopes and PROFILE_READ not in scopes:
        errors.append(f"{CONTEXT_SEARCH} needs {PROFILE_READ}")
    return errors


def ordered(scopes) -> list[str]:
    return [name for name in ALL if name in set(scopes)]
