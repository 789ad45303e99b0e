"""The built-in resource types (SPEC D-6), one module each: a declaration and an adapter.

Every module here is imported by ``registry`` on first use; adding a module
adds a type.
"""
