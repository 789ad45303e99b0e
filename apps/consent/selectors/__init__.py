"""Reads of the consent app, one module per subject (the writes are ``services``).

``visibility``: what an assistant may see (SPEC C-1), the one rule; ``visible_set``: its fast path, the set as
one call reads it; ``access``: what assistants were sent; ``proposals``; ``fact_lists`` and ``pages``: what each
/me/ page shows.
"""
