"""The service status in admin: one row, editable, never deleted (SPEC D-9, AD-1)."""

import pytest

from apps.ops.models import ServiceStatus
from apps.ops.selectors import service_status

pytestmark = pytest.mark.django_db

CHANGELIST = "/admin/ops/servicestatus/"
ADD = "/admin/ops/servicestatus/add/"
CHANGE = "/admin/ops/servicestatus/1/change/"
DELETE = "/admin/ops/servicestatus/1/delete/"


# SPEC D-9, AD-1: staff create the status once; then the list leads straight to it.
def test_status_is_created_once_then_edited(admin_client):
    assert admin_client.get(CHANGELIST).url == ADD
    response = admin_client.post(ADD, {"state": "maintenance", "message": "Back at 10:00"})
    assert response.status_code == 302
    status = ServiceStatus.objects.get()
    assert (status.pk, status.state, status.message) == (1, "maintenance", "Back at 10:00")

    assert admin_client.get(CHANGELIST).url == CHANGE
    assert admin_client.get(ADD).status_code == 403

    admin_client.post(CHANGE, {"state": "closed", "message": "Closed for migration"})
    assert (service_status().state, service_status().message) == ("closed", "Closed for migration")


# SPEC D-9: the status can be changed but never deleted, one by one or in bulk.
def test_status_cannot_be_deleted(admin_client):
    admin_client.post(ADD, {"state": "open", "message": ""})
    assert admin_client.get(DELETE).status_code == 403
    assert admin_client.post(DELETE, {"post": "yes"}).status_code == 403
    response = admin_client.post(CHANGELIST, {"action": "delete_selected", "_selected_action": ["1"], "post": "yes"})
    assert response.status_code in (302, 200)
    assert ServiceStatus.objects.filter(pk=1).exists()


# SPEC AD-1: only staff reach it.
def test_status_admin_needs_staff(client, user):
    client.force_login(user)
    assert client.get(CHANGE).status_code == 302
    assert "/admin/login/" in client.get(CHANGE).url
