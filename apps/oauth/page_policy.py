"""The consent page's Content-Security-Policy: the site's policy without ``form-action``.

Approving (or denying) posts the consent form to the site, which answers with
a redirect to the assistant's redirect URI (https anywhere, loopback http, a
native app's own scheme). Browsers apply ``form-action`` to where a form
submission is redirected, so the site-wide ``'self'`` would stop the person's
browser from ever reaching the assistant. The redirect URIs are checked at
registration and at authorization (registration.py, validators.py); every
other directive stays.
"""

from csp.decorators import csp_replace

CONSENT_PAGE_POLICY = csp_replace({"form-action": None})
