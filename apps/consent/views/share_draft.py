"""The person's unsaved sharing choices, kept in their session while they page and filter (SPEC W-5, W-6).

Also SPEC C-2. Design notes: docs/design.md.
"""

from __future__ import annotations

Draft = dict[int, tuple[bool, int | None]]  # fact id → (ticked, version it was chosen at)


def _key(connection_pk: int) -> str:
    return f"share-draft:{connection_pk}"


def load(request, connection_pk: int) -> Draft:
    stored = request.session.get(_key(connection_pk)) or {}
    return {int(fid): (bool(ticked), version) for fid, (ticked, version) in stored.items()}


def store(request, connection_pk: int, draft: Draft) -> None:
    if not draft:
        clear(request, connection_pk)
        return
    request.session[_key(connection_pk)] = {str(fid): [ticked, version] for fid, (ticked, version) in draft.items()}


def clear(request, connection_pk: int) -> None:
    request.session.pop(_key(connection_pk), None)


def with_page(draft: Draft, *, ticked: set[int], seen: dict[int, int]) -> Draft:
    """``draft`` updated with what one page of the form sent: each shown fact ticked or not.

    A ticked fact the page did not show keeps no version, so saving refuses it as unseen.
    """
    merged = dict(draft)
    merged.update({fid: (fid in ticked, version) for fid, version in seen.items()})
    merged.update({fid: (True, None) for fid in ticked - seen.keys()})
    return merged


def split(draft: Draft) -> tuple[dict[int, int | None], set[int]]:
    """(ticked fact id → version chosen at, unticked fact ids): what ``shares_apply`` takes."""
    return ({fid: version for fid, (ticked, version) in draft.items() if ticked},
            {fid for fid, (ticked, _) in draft.items() if not ticked})
