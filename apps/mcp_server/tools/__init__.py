"""The tools' and resources' handlers, one module per tool family; the catalog names them (SPEC M-2).

Each takes the grant and the arguments its schema validated; returns an ``answer.Answer`` or a ``ToolError``."""
