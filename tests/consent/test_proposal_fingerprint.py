"""The fingerprint that makes identical proposals one is stored, so its form is fixed (SPEC P-4).

A pending proposal is found again by the fingerprint saved with it; a
fingerprint computed differently after an upgrade would no longer find it,
and the assistant's repeat would become a second proposal.
"""

import hashlib

import pytest

from apps.consent.services import proposal_submit
from tests.consent.factories import make_connection

pytestmark = pytest.mark.django_db


# SPEC P-4: SHA-256 of the normalized arguments as compact JSON with sorted keys and characters as they are.
def test_the_stored_fingerprint_is_the_documented_digest(user):
    proposal = proposal_submit(connection=make_connection(user), arguments={
        "op": "add", "category": "preferences", "label": "  Café ", "value": "不喝酒"})
    canonical = '{"category":"preferences","label":"café","op":"add","value":"不喝酒"}'
    assert proposal.fingerprint == hashlib.sha256(canonical.encode("utf-8")).hexdigest()
