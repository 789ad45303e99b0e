"""The assistant scopes and the rules that tie them together (SPEC A-5)."""

from __future__ import annotations

from django.utils.translation import gettext_lazy as _

PROFILE_READ = "profile:read"
PROFILE_PROPOSE = "profile:propose"
PROFILE_CORRECT = "profile:correct"
CONTEXT_SEARCH = "context:search"

# In plain words, for the consent and connection pages (SPEC A-7).
DESCRIPTIONS = {
    PROFILE_READ: _("Read the facts you choose to share with it"),
    PROFILE_PROPOSE: _("Suggest new memories, which you review before anything is saved"),
    PROFILE_CORRECT: _("Suggest corrections or archiving of facts you shared, which you review first"),
    CONTEXT_SEARCH: _("Search the facts you shared with it"),
}
ALL = tuple(DESCRIPTIONS)


def scope_errors(scopes: set[str]) -> list[str]:
    """Why this set of scopes cannot be granted (empty when it can)."""
    errors = [f"unknown scope {name!r}" for name in sorted(scopes - set(ALL))]
    if CONTEXT_SEARCH in scopes and PROFILE_READ not in scopes:
        errors.append(f"{CONTEXT_SEARCH} needs {PROFILE_READ}")
    return errors


def ordered(scopes) -> list[str]:
    return [name for name in ALL if name in set(scopes)]
