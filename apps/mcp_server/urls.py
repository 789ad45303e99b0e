from django.urls import path

from apps.mcp_server.views import mcp_endpoint

app_name = "mcp_server"

# Exactly /mcp: no trailing slash, so no redirect a client would have to follow (SPEC M-1).
urlpatterns = [path("mcp", mcp_endpoint, name="endpoint")]
