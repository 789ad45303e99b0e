"""A start prints nothing to worry about: the system checks, database ones included, find nothing.

`make run` runs them on every start (runserver, migrate); the local default is SQLite.
"""

import pytest
from django.core.management import call_command


@pytest.mark.django_db
def test_the_system_checks_find_nothing_on_this_database(capsys):
    # models.W040 was printed on every SQLite start: the vector scope's index had columns SQLite cannot keep.
    call_command("check", databases=["default"], fail_level="WARNING")
    # Silenced checks are each given a reason in config/settings.py (the passkey origin check on local http).
    assert "System check identified no issues (" in capsys.readouterr().out
