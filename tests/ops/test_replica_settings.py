"""Read replicas are configured by the environment, and nothing changes without them (SPEC O-4, O-2).

The replicas at work: tests/common/test_replicas.py. docs/deploy.md ("Read replicas").
"""

import pytest
from django.core.exceptions import ImproperlyConfigured

PRIMARY = {"DATABASE_URL": "postgres://lifeos:pw@db.internal:5432/lifeos"}
TWO = "postgres://reader:pw@replica-1.internal:5432/lifeos, postgres://reader:pw@replica-2.internal:5432/lifeos"


def test_no_replica_by_default(settings_for):  # SPEC O-4
    built = settings_for(PRIMARY)
    assert list(built["DATABASES"]) == ["default"]
    assert built["DATABASE_REPLICAS"] == [] and built["DATABASE_ROUTERS"] == []
    assert "apps.common.replicas.AdminListsOnReplicas" not in built["MIDDLEWARE"]
    assert built["REPLICA_MAX_LAG_SECONDS"] is None  # the assistant path reads the primary


def test_each_replica_url_is_a_database_behind_the_router(settings_for):  # SPEC O-4
    built = settings_for({**PRIMARY, "DATABASE_REPLICA_URLS": TWO, "REPLICA_MAX_LAG_SECONDS": "2"})
    assert built["DATABASE_REPLICAS"] == ["replica_0", "replica_1"]
    assert built["DATABASE_ROUTERS"] == ["apps.common.replicas.ReplicaRouter"]
    assert built["MIDDLEWARE"][-1] == "apps.common.replicas.AdminListsOnReplicas"
    first, primary = built["DATABASES"]["replica_0"], built["DATABASES"]["default"]
    assert (first["HOST"], first["USER"], first["NAME"]) == ("replica-1.internal", "reader", "lifeos")
    assert built["DATABASES"]["replica_1"]["HOST"] == "replica-2.internal"
    # As the primary's connections: kept as long, health-checked, the same timeouts and prepared statements.
    assert first["CONN_MAX_AGE"] == primary["CONN_MAX_AGE"] and first["CONN_HEALTH_CHECKS"] is True
    assert first["OPTIONS"] == primary["OPTIONS"]
    assert first["TEST"] == {"MIRROR": "default"}
    assert built["REPLICA_MAX_LAG_SECONDS"] == 2


@pytest.mark.parametrize(("environ", "named"), [
    ({"DATABASE_URL": "sqlite:///var/db.sqlite3", "DATABASE_REPLICA_URLS": TWO}, "DATABASE_REPLICA_URLS"),
    ({**PRIMARY, "DATABASE_REPLICA_URLS": "sqlite:///var/other.sqlite3"}, "DATABASE_REPLICA_URLS"),
    ({**PRIMARY, "REPLICA_MAX_LAG_SECONDS": "-1"}, "REPLICA_MAX_LAG_SECONDS"),
    ({**PRIMARY, "REPLICA_MAX_LAG_SECONDS": "3601"}, "REPLICA_MAX_LAG_SECONDS"),
    ({**PRIMARY, "REPLICA_MAX_LAG_SECONDS": "soon"}, "REPLICA_MAX_LAG_SECONDS"),
])
def test_a_replica_setting_that_cannot_work_stops_start_up(settings_for, environ, named):  # SPEC O-4, O-2
    with pytest.raises(ImproperlyConfigured, match=named):
        settings_for(environ)
