"""Writes that change who may see what. Each is one transaction."""

from apps.consent.services.access import access_event_record, access_events_prune, access_partitions_ensure
from apps.consent.services.connections import (
    ConsentError,
    connection_authorize,
    connection_live_locked,
    connection_narrow,
    connection_revoke,
    connection_touch,
)
from apps.consent.services.shares import shares_apply, shares_set

__all__ = [
    "ConsentError",
    "access_event_record",
    "access_events_prune",
    "access_partitions_ensure",
    "connection_authorize",
    "connection_live_locked",
    "connection_narrow",
    "connection_revoke",
    "connection_touch",
    "shares_apply",
    "shares_set",
]

# Proposals (SPEC P-1 … P-7).
from apps.consent.services.proposal_checks import ProposalError
from apps.consent.services.proposals import (
    PROPOSAL_LIFETIME,
    proposal_confirm,
    proposal_edit,
    proposal_expire,
    proposal_expire_due,
    proposal_ignore,
    proposal_submit,
)

__all__ += [
    "PROPOSAL_LIFETIME",
    "ProposalError",
    "proposal_confirm",
    "proposal_edit",
    "proposal_expire",
    "proposal_expire_due",
    "proposal_ignore",
    "proposal_submit",
]

from apps.consent.services.proposal_bulk import (  # noqa: E402 - grouped with its section
    BulkConfirmed,
    proposals_confirm,
    proposals_ignore,
)

__all__ += ["BulkConfirmed", "proposals_confirm", "proposals_ignore"]

# E-mail about waiting suggestions (SPEC W-7).
from apps.consent.services.notices import (  # noqa: E402 - grouped with its section
    NoticeRun,
    notice_deliver,
    notice_settings_save,
    notices_send_digests,
    notices_send_expiry,
    notices_unsubscribe,
)

__all__ += [
    "NoticeRun",
    "notice_deliver",
    "notice_settings_save",
    "notices_send_digests",
    "notices_send_expiry",
    "notices_unsubscribe",
]
