from django.urls import path

from apps.mcp_server.transport.views import mcp_endpoint

app_name = "mcp_server"

# /mcp, and /mcp/ served the same rather than redirected: a POST is not re-sent to a redirect (SPEC M-1, A-10).
urlpatterns = [path("mcp", mcp_endpoint, name="endpoint"), path("mcp/", mcp_endpoint)]
