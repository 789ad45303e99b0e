"""Serving /mcp: the ASGI entry point, the Django view, the MCP SDK server and its transport, CORS, ORM threads.

Each call's pipeline (admission, dispatch, guard, arguments, errors, responses) sits at the top of the app."""
