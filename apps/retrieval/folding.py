"""Traditional Chinese folded to Simplified for matching (SPEC S-3, S-4): 簽證 finds 签证.

Design notes: docs/design.md.
"""

from __future__ import annotations

import re
import threading
from pathlib import Path

_BLOCKS = ((0x3400, 0x4DC0), (0x4E00, 0xA000), (0xF900, 0xFB00))
_lock = threading.Lock()
_table: tuple[re.Pattern, dict[str, str]] | None = None


def _loaded() -> tuple[re.Pattern, dict[str, str]]:
    global _table
    if _table is None:
        with _lock:
            if _table is None:
                import zhconv

                # Named by its path, zhconv reads its dictionary inside ``with open``; by default it
                # leaves the file to the garbage collector (a ResourceWarning, and a descriptor held).
                zhconv.loaddict(str(Path(zhconv.__file__).with_name("zhcdict.json")))
                mapping = {}
                for start, end in _BLOCKS:
                    for code in range(start, end):
                        char = chr(code)
                        simplified = zhconv.convert(char, "zh-cn")
                        if simplified != char and len(simplified) == 1:
                            mapping[char] = simplified
                _table = (re.compile("[" + "".join(sorted(mapping)) + "]"), mapping)
    return _table


def fold_traditional(text: str) -> str:
    """``text`` with every Traditional character that has a one-character Simplified form replaced by it."""
    if text.isascii():
        return text
    pattern, mapping = _loaded()
    return pattern.sub(lambda m: mapping[m.group()], text)
