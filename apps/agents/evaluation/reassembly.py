"""The client side of read fragments: apply them in order to rebuild a record (see ``documents``)."""

from __future__ import annotations

import copy

from apps.retrieval.layer import pointers


def reassemble(fragments: list[dict]) -> dict:
    doc: dict = {}
    for fragment in fragments:
        tokens = pointers.split(fragment["path"])
        parent = doc
        for token in tokens[:-1]:
            parent = parent[int(token)] if isinstance(parent, list) else parent[token]
        last = tokens[-1]
        if "value" in fragment:
            value = copy.deepcopy(fragment["value"])
        else:
            before = "" if fragment["start"] == 0 else (parent[int(last)] if isinstance(parent, list) else parent[last])
            value = before + fragment["text"]
        if isinstance(parent, list):
            if int(last) == len(parent):
                parent.append(value)
            else:
                parent[int(last)] = value
        else:
            parent[last] = value
    return doc
