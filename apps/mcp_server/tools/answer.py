"""What a tool or resource handler returns: the answer and what it carried (SPEC M-2, M-11).

``dispatch`` records what the answer carried as the access history.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class Answer:
    payload: dict[str, Any]
    sent: tuple[tuple[int, int], ...] = ()  # (fact id, version) of every fact in the payload
    event: str = ""  # the access-history name when it is not the tool's own
    refs: tuple[str, ...] = ()  # "<type>:<id>" of every memory record in the payload (tools/memory.py)
