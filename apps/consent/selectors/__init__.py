"""Reads of the consent app, one module per subject (the writes are ``services``).

``visibility`` (SPEC C-1) and its fast path ``visible_set``; ``access``; ``proposals``; ``fact_lists``; ``pages``."""
