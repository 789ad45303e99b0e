"""The person's facts as search_user_context matches them: the ``user_profile`` type's searchable fields.

Also SPEC C-8, S-1. The type itself is declared once, with the others (``layer/resources/user_profile.py``).
"""

from __future__ import annotations

USER_PROFILE = "user_profile"
USER_PROFILE_FIELDS = ("/label", "/value")  # never /evidence (SPEC C-8)
