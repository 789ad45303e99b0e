"""The consent page's Content-Security-Policy: the site's policy without ``form-action``.

Design notes: docs/design.md.
"""

from csp.decorators import csp_replace

CONSENT_PAGE_POLICY = csp_replace({"form-action": None})
