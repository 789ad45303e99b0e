"""The tools' and resources' handlers, one module per tool family; the catalog names them (SPEC M-2).

Each handler takes the grant and the arguments the catalog's schema already
validated, and returns an ``answer.Answer``; failures are ``ToolError`` values.
"""
