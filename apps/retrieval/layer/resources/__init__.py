"""The built-in resource types (SPEC D-6), one module each: a declaration and an adapter.

Design notes: docs/design.md.
"""
