"""Agent policies are edited in admin; runs are inspected and ended there (SPEC R-4, AD-1)."""

import pytest
from django.urls import reverse

from apps.agents.models import AgentGrant, RunSnapshot
from apps.agents.services import run_access, run_start
from apps.retrieval.layer import LayerError
from tests.agents.builders import make_agent

pytestmark = pytest.mark.django_db


def _form(policy, grant, fields: str) -> dict:
    return {
        "agent_id": policy.agent_id, "name": policy.name, "application": policy.application_id, "enabled": "on",
        "grants-TOTAL_FORMS": "1", "grants-INITIAL_FORMS": "1", "grants-MIN_NUM_FORMS": "0",
        "grants-MAX_NUM_FORMS": "1000",
        "grants-0-id": grant.pk, "grants-0-policy": policy.pk, "grants-0-resource": grant.resource,
        "grants-0-can_list": "on", "grants-0-can_read": "on", "grants-0-fields": fields,
    }


def test_a_policys_field_paths_are_edited_in_admin(admin_client, user):  # SPEC R-4
    policy = make_agent(grants={"todo": {"operations": ["list", "read", "search"], "fields": ["*"]}})
    grant = AgentGrant.objects.get(policy=policy)
    url = reverse("admin:agents_agentpolicy_change", args=[policy.pk])
    assert admin_client.get(url).status_code == 200

    refused = admin_client.post(url, _form(policy, grant, "/title\n/participants/*/role"))
    assert refused.status_code == 200 and "not a declared field" in refused.content.decode()

    run = run_start(policy=policy, user_id=user.pk, thread_id="t")
    saved = admin_client.post(url, _form(policy, grant, "/title\n/status"))
    assert saved.status_code == 302
    grant.refresh_from_db()
    assert (grant.operations, grant.field_patterns) == (["list", "read"], ["/title", "/status"])
    access = run_access(policy=policy, run_id=run.run_id, thread_id="t")
    assert access.grant.types["todo"].fields == ("/status", "/title")
    assert access.grant.types["todo"].operations == {"list", "read"}


def test_runs_are_listed_and_ended_in_admin(admin_client, user):  # SPEC D-7
    policy = make_agent()
    run = run_start(policy=policy, user_id=user.pk, thread_id="t")
    listing = admin_client.get(reverse("admin:agents_runsnapshot_changelist"))
    assert listing.status_code == 200 and str(run.run_id) in listing.content.decode()
    admin_client.post(reverse("admin:agents_runsnapshot_changelist"),
                      {"action": "end_runs", "_selected_action": [run.pk]})
    assert RunSnapshot.objects.get(pk=run.pk).ended_at is not None
    with pytest.raises(LayerError) as refused:
        run_access(policy=policy, run_id=run.run_id, thread_id="t")
    assert refused.value.code == "run_ended"
