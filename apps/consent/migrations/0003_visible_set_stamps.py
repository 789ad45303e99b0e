"""Change stamps of the visible set's sources, kept by the database (PostgreSQL only).

A connection's visible set (``consent.selectors.visibility.visible_query``) is made of its
owner's rows in the fact table and its own rows in the share table. Every
statement that inserts, updates or deletes rows there sets a new random stamp
for each owner (kind ``f``) or connection (kind ``s``) it touched, in the same
transaction, whoever writes: the services, the admin, a bulk load or raw SQL.
While both stamps of a connection are unchanged, so is its visible set; the
read of the set (``visible_set_read``) then skips summing up the whole set
again (docs/performance.md). Statement-level triggers with transition tables:
one stamp write per statement and owner, however many rows it touched.

``TRUNCATE`` fires none of these triggers; migration ``0004`` stamps it.
SQLite (local development) computes the set's digests in Python and needs no
stamps.
"""

from django.db import migrations

STAMPS = "consent_visiblestamp"

# kind: 'f' — the facts of owner ``key``; 's' — the shares of connection ``key``.
CREATE_TABLE = f"""
CREATE TABLE IF NOT EXISTS {STAMPS} (
    kind char(1) NOT NULL,
    key bigint NOT NULL,
    stamp bigint NOT NULL,
    PRIMARY KEY (kind, key)
)"""

# One function per source and event: PostgreSQL allows transition tables only on single-event
# triggers, and a function may only name the transition tables its trigger declares.
FUNCTION = """
CREATE OR REPLACE FUNCTION {name}() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO {stamps} (kind, key, stamp)
    SELECT '{kind}', changed.key, (random() * 9.2e18)::bigint FROM ({rows}) AS changed (key)
    ON CONFLICT (kind, key) DO UPDATE SET stamp = EXCLUDED.stamp;
    RETURN NULL;
END
$$"""

# Per event: the transition tables its trigger declares, and the keys of the rows it wrote.
EVENTS = {
    "INSERT": ("REFERENCING NEW TABLE AS new_rows", "SELECT DISTINCT {column} FROM new_rows"),
    "UPDATE": ("REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows",
               "SELECT {column} FROM old_rows UNION SELECT {column} FROM new_rows"),
    "DELETE": ("REFERENCING OLD TABLE AS old_rows", "SELECT DISTINCT {column} FROM old_rows"),
}


def _sources(apps) -> list[tuple[str, str, str]]:
    """(table, column keying the stamp, kind) of each source of the visible set."""
    fact = apps.get_model("memory", "Fact")._meta
    share = apps.get_model("consent", "FactShare")._meta
    return [
        (fact.db_table, fact.get_field("owner").column, "f"),
        (share.db_table, share.get_field("connection").column, "s"),
    ]


def forward(apps, schema_editor):
    if schema_editor.connection.vendor != "postgresql":
        return
    schema_editor.execute(CREATE_TABLE)
    for table, column, kind in _sources(apps):
        for event, (referencing, rows) in EVENTS.items():
            name = f"{STAMPS}_{kind}_{event.lower()}"
            schema_editor.execute(FUNCTION.format(name=name, stamps=STAMPS, kind=kind, rows=rows.format(column=column)))
            schema_editor.execute(
                f"CREATE TRIGGER {name} AFTER {event} ON {table} {referencing} FOR EACH STATEMENT EXECUTE FUNCTION {name}()"
            )


def backward(apps, schema_editor):
    if schema_editor.connection.vendor != "postgresql":
        return
    for table, _, kind in _sources(apps):
        for event in EVENTS:
            name = f"{STAMPS}_{kind}_{event.lower()}"
            schema_editor.execute(f"DROP TRIGGER IF EXISTS {name} ON {table}")
            schema_editor.execute(f"DROP FUNCTION IF EXISTS {name}()")
    schema_editor.execute(f"DROP TABLE IF EXISTS {STAMPS}")


class Migration(migrations.Migration):
    dependencies = [
        ("consent", "0002_proposal_status_expires"),
        ("memory", "0002_fact_evidence_one_line_validator"),
    ]

    operations = [migrations.RunPython(forward, backward)]
