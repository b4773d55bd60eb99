"""Settings for the installment checkout service.

Every value is read once, here, from the environment (django-environ, 12-factor);
DESIGN section 2 lists the variables. Embedded defaults run the whole service on
one machine: SQLite, the django-q2 ORM broker, the database cache, console e-mail
and the sandbox processor. DATABASE_URL and REDIS_URL switch to PostgreSQL and
Redis without a code change.
"""

import hashlib
from datetime import timedelta
from pathlib import Path
from urllib.parse import urlparse

import environ
from django.core.exceptions import ImproperlyConfigured

from config.api.rates import parse_rate

BASE_DIR = Path(__file__).resolve().parent.parent

env = environ.Env()

DEBUG = env.bool("DEBUG", default=False)

_DEV_SECRET_KEY = "dev-only-insecure-secret-key-do-not-use-in-production"
SECRET_KEY = env.str("SECRET_KEY", default="")
if not SECRET_KEY:
    if not DEBUG:
        raise ImproperlyConfigured(
            "SECRET_KEY must be set when DEBUG is false (it signs sessions and JWTs)."
        )
    SECRET_KEY = _DEV_SECRET_KEY

BASE_URL = env.str("BASE_URL", default="http://127.0.0.1:8000").rstrip("/")
CONSUMER_URL = env.str("CONSUMER_URL", default=BASE_URL).rstrip("/")

ALLOWED_HOSTS = env.list("ALLOWED_HOSTS", default=["127.0.0.1", "localhost"])
_base_host = urlparse(BASE_URL).hostname
if _base_host and _base_host not in ALLOWED_HOSTS:
    ALLOWED_HOSTS.append(_base_host)

PROCESSOR = env.str("PROCESSOR", default="sandbox")
if PROCESSOR not in ("sandbox", "paystack"):
    raise ImproperlyConfigured("PROCESSOR must be 'sandbox' or 'paystack'.")
PAYSTACK_SECRET_KEY = env.str("PAYSTACK_SECRET_KEY", default="sk_test_sandbox")
PAYSTACK_BASE_URL = env.str("PAYSTACK_BASE_URL", default="https://api.paystack.co")

# Rotating SECRET_KEY (docs/operations.md): the previous keys stay valid for
# sessions and password-reset links while listed here.
SECRET_KEY_FALLBACKS = env.list("SECRET_KEY_FALLBACKS", default=[])


def _derived_field_key(secret: str) -> str:
    return hashlib.sha256(b"field-encryption:" + secret.encode()).hexdigest()


# Comma-separated: the first key encrypts, every key decrypts (config/db/encryption.py).
# When unset it is derived from SECRET_KEY, and from the fallbacks, so that a
# SECRET_KEY rotation keeps stored secrets readable until reencrypt_secrets ran.
FIELD_ENCRYPTION_KEY = env.str(
    "FIELD_ENCRYPTION_KEY",
    default=",".join(map(_derived_field_key, [SECRET_KEY, *SECRET_KEY_FALLBACKS])),
)
WEBHOOK_ALLOW_PRIVATE_NETWORKS = env.bool(
    "WEBHOOK_ALLOW_PRIVATE_NETWORKS", default=DEBUG
)
# Outbound webhooks (DESIGN section 10): https only unless DEBUG; each request's
# connect and read timeouts; deliveries are sent in batches over a thread pool.
WEBHOOK_ALLOW_HTTP = env.bool("WEBHOOK_ALLOW_HTTP", default=DEBUG)
WEBHOOK_TIMEOUT_SECONDS = env.float("WEBHOOK_TIMEOUT_SECONDS", default=10.0)
WEBHOOK_DELIVERY_THREADS = env.int("WEBHOOK_DELIVERY_THREADS", default=32)
# The collection engine (docs/auto-debit.md): processor calls of a batch overlap
# on this many threads (with the sandbox each thread holds a database connection
# while the batch is charged).
INSTALLMENT_COLLECTION_THREADS = env.int("INSTALLMENT_COLLECTION_THREADS", default=32)
# A simulated round trip added to each sandbox charge and verify call (ms).
SANDBOX_LATENCY_MS = env.int("SANDBOX_LATENCY_MS", default=0)

INSTALLED_APPS = [
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "django.contrib.staticfiles",
    "rest_framework",
    "drf_spectacular",
    "drf_spectacular_sidecar",
    # Before django_q: its `qcluster` command replaces django-q2's
    # (config/api/management/commands/qcluster.py).
    "config.api",
    "django_q",
    "merchants",
    "webhooks",
    "payments",
    "installments",
    "checkout",
]

MIDDLEWARE = [
    "config.api.middleware.RequestIdMiddleware",
    # Every request starts on the live side (config/sides.py, DESIGN 21).
    "config.sides.SideMiddleware",
    # Times every request below it, labelled by its URL pattern's name.
    "config.observability.middleware.RequestMetricsMiddleware",
    # /healthz, /readyz and /metrics are answered here, before the host check
    # and the HTTPS redirect: probes and scrapers reach a process by its address.
    "config.observability.middleware.OpsEndpointsMiddleware",
    "django.middleware.security.SecurityMiddleware",
    "config.api.middleware.BodySizeLimitMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    # Above XFrameOptionsMiddleware: it may drop X-Frame-Options for the hosted
    # checkout framed on a merchant's own site (config/web/security_headers.py).
    "config.web.security_headers.SecurityHeadersMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    "config.api.middleware.ApiErrorMiddleware",
    "config.api.throttling.RateLimitHeadersMiddleware",
    # Last, so that its process_exception sees a view's error first: 503 for an
    # unreachable database (config/api/unavailable.py).
    "config.api.unavailable.DatabaseUnavailableMiddleware",
]

# HTTPS posture (docs/operations.md, "Production settings"). The service runs behind
# a TLS-terminating proxy that sets X-Forwarded-Proto. HTTPS defaults to on when
# DEBUG is false and BASE_URL is https (as in production) and to off otherwise, so
# `make run` and the test client keep working over plain http.
HTTPS = env.bool("HTTPS", default=not DEBUG and BASE_URL.startswith("https://"))
if HTTPS:
    SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
    SECURE_SSL_REDIRECT = not DEBUG
    SECURE_HSTS_SECONDS = env.int("SECURE_HSTS_SECONDS", default=365 * 24 * 3600)
    SECURE_HSTS_INCLUDE_SUBDOMAINS = env.bool(
        "SECURE_HSTS_INCLUDE_SUBDOMAINS", default=True
    )
    SECURE_HSTS_PRELOAD = env.bool("SECURE_HSTS_PRELOAD", default=True)
    SESSION_COOKIE_SECURE = True
    CSRF_COOKIE_SECURE = True
SESSION_COOKIE_HTTPONLY = True
SECURE_CONTENT_TYPE_NOSNIFF = True
SECURE_REFERRER_POLICY = "same-origin"
X_FRAME_OPTIONS = "DENY"
# Django's default password hasher (PBKDF2) is kept: PASSWORD_HASHERS is not set.

ROOT_URLCONF = "config.urls"
WSGI_APPLICATION = "config.wsgi.application"
# API paths are served with and without a trailing slash, never redirected.
APPEND_SLASH = False

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [BASE_DIR / "templates"],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
            ],
        },
    },
]

DATABASES = {
    "default": env.db("DATABASE_URL", default=f"sqlite:///{BASE_DIR / 'db.sqlite3'}")
}
if DATABASES["default"]["ENGINE"] == "django.db.backends.sqlite3":
    # IMMEDIATE transactions take the write lock up front, so two writers queue
    # on the busy timeout instead of failing with "database is locked".
    DATABASES["default"].setdefault("OPTIONS", {}).update(
        {"transaction_mode": "IMMEDIATE", "timeout": 20}
    )
else:
    DATABASES["default"].setdefault("CONN_MAX_AGE", env.int("CONN_MAX_AGE", 60))
    DATABASES["default"]["CONN_HEALTH_CHECKS"] = True
    # Parameters travel apart from the SQL instead of being quoted into it by
    # psycopg in Python: on the auto-debit engine's batch inserts that quoting
    # was a quarter of the CPU (bench/RESULTS.md). No prepared statements (Django's
    # default), so it also works behind a transaction-pooling PgBouncer.
    DATABASES["default"].setdefault("OPTIONS", {})["server_side_binding"] = env.bool(
        "DB_SERVER_SIDE_BINDING", default=True
    )
IS_POSTGRES = DATABASES["default"]["ENGINE"].startswith("django.db.backends.postgresql")
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

REDIS_URL = env.str("REDIS_URL", default="")
if REDIS_URL:
    CACHES = {
        "default": {
            "BACKEND": "django.core.cache.backends.redis.RedisCache",
            "LOCATION": REDIS_URL,
        }
    }
else:
    CACHES = {
        "default": {
            "BACKEND": "django.core.cache.backends.db.DatabaseCache",
            "LOCATION": "django_cache",
        }
    }

Q_CLUSTER = {
    "name": "installments",
    "workers": env.int("Q_WORKERS", default=2),
    # A task running past `retry` is handed out again, so timeout < retry.
    "timeout": 120,
    "retry": 180,
    "max_attempts": 3,
    "catch_up": False,
    "save_limit": 1000,
    "ack_failures": True,
    "label": "Task queue",
}
if REDIS_URL:
    Q_CLUSTER["redis"] = REDIS_URL
else:
    Q_CLUSTER["orm"] = "default"

AUTH_PASSWORD_VALIDATORS = [
    {
        "NAME": "django.contrib.auth.password_validation."
        "UserAttributeSimilarityValidator"
    },
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
    {"NAME": "django.contrib.auth.password_validation.NumericPasswordValidator"},
]

LANGUAGE_CODE = "en-us"
TIME_ZONE = env.str("TIME_ZONE", default="Africa/Lagos")
USE_I18N = True
USE_TZ = True

STATIC_URL = "static/"
STATICFILES_DIRS = [BASE_DIR / "static"]
STATIC_ROOT = BASE_DIR / "staticfiles"

EMAIL_CONFIG = env.email_url("EMAIL_URL", default="consolemail://")
vars().update(EMAIL_CONFIG)
DEFAULT_FROM_EMAIL = env.str("DEFAULT_FROM_EMAIL", default="no-reply@installments.ng")
OPERATIONS_EMAIL = env.str("OPERATIONS_EMAIL", default="operations@installments.ng")
# Text messages (config/sms/): console:// prints them, termii://<api key>@<sender
# id> sends them through Termii (docs/operations.md).
SMS_URL = env.str("SMS_URL", default="console://")
if urlparse(SMS_URL).scheme not in ("console", "locmem", "termii"):
    raise ImproperlyConfigured(
        "SMS_URL must start with console://, locmem:// or termii:// "
        "(docs/operations.md)."
    )
# A sender holds the reminders and receipts it took this long; the sweep takes
# those it left unrecorded after it. Longer than a task may run (Q_CLUSTER
# timeout), so a sender still at work never loses them to the sweep.
MESSAGE_LEASE_SECONDS = env.int("MESSAGE_LEASE_SECONDS", default=300)
if MESSAGE_LEASE_SECONDS < 1:
    raise ImproperlyConfigured("MESSAGE_LEASE_SECONDS must be 1 or more.")
# Reminders go out this many days before an installment's due date.
REMINDER_DAYS_BEFORE = env.int("REMINDER_DAYS_BEFORE", default=3)
if REMINDER_DAYS_BEFORE < 1:
    raise ImproperlyConfigured("REMINDER_DAYS_BEFORE must be 1 or more.")
# The financial-records period (DESIGN 18): a plan's records are purged by the
# daily `installments-purge-records` job this many years after the plan ended.
RECORDS_RETENTION_YEARS = env.int("RECORDS_RETENTION_YEARS", default=6)
if RECORDS_RETENTION_YEARS < 1:
    raise ImproperlyConfigured("RECORDS_RETENTION_YEARS must be 1 or more.")
# The merchant audit log (DESIGN 20): rows older than this many days are
# removed by the daily records purge (merchants/audit/services.py).
AUDIT_RETENTION_DAYS = env.int("AUDIT_RETENTION_DAYS", default=730)
if AUDIT_RETENTION_DAYS < 1:
    raise ImproperlyConfigured("AUDIT_RETENTION_DAYS must be 1 or more.")

# Request bodies over 1 MiB get 413 (DESIGN section 4).
DATA_UPLOAD_MAX_MEMORY_SIZE = 1024 * 1024
# Multipart uploads that may be larger (config/api/middleware.py): a dispute's
# evidence, up to 5 files of 5 MiB each and its text fields, by the API or
# the dashboard's answer form.
UPLOAD_BODY_LIMITS = (
    (r"/api/v1/disputes/[^/]+/evidence/?", 26 * 1024 * 1024),
    (r"/dashboard/disputes/[^/]+/answer/", 26 * 1024 * 1024),
)

REST_FRAMEWORK = {
    # Every API view accepts every credential kind; each view's permission says
    # which kinds it takes, so a credential of the wrong kind gets 403, not 401.
    "DEFAULT_AUTHENTICATION_CLASSES": [
        "merchants.authentication.ApiKeyAuthentication",
        "config.api.auth.JWTAuthentication",
    ],
    "DEFAULT_PERMISSION_CLASSES": ["rest_framework.permissions.AllowAny"],
    "DEFAULT_THROTTLE_CLASSES": ["config.api.throttling.PrincipalRateThrottle"],
    "DEFAULT_RENDERER_CLASSES": ["rest_framework.renderers.JSONRenderer"],
    "DEFAULT_PARSER_CLASSES": ["config.api.parsers.SafeJSONParser"],
    "EXCEPTION_HANDLER": "config.api.exceptions.exception_handler",
    "DEFAULT_SCHEMA_CLASS": "config.api.schema_generator.AutoSchema",
    "UNAUTHENTICATED_USER": None,
    "DATETIME_FORMAT": "%Y-%m-%dT%H:%M:%S.%fZ",
}

# The OpenAPI schema at /api/v1/schema/, Swagger UI at /api/docs/, ReDoc at
# /api/redoc/ (config/api/schema.py; each app's endpoints in <app>/schema.py). The UI
# assets come from the drf-spectacular-sidecar package, served as our own static
# files: nothing is fetched from a CDN.
SPECTACULAR_SETTINGS = {
    # The introduction and the tags, with links to the guides: config/api/reference.py.
    "TITLE": "Installment checkout API",
    "VERSION": "1.0.0",
    "OAS_VERSION": "3.0.3",
    "SERVE_INCLUDE_SCHEMA": False,
    "SCHEMA_PATH_PREFIX": "/api/v1",
    "DEFAULT_GENERATOR_CLASS": "config.api.schema_generator.Generator",
    "PREPROCESSING_HOOKS": ["config.api.schema_generator.keep_api_endpoints"],
    "POSTPROCESSING_HOOKS": [
        "drf_spectacular.hooks.postprocess_schema_enums",
        "config.api.schema_generator.add_components",
    ],
    # One name for the schedule types, whichever field lists them.
    "ENUM_NAME_OVERRIDES": {
        "ScheduleTypeEnum": "installments.plans.rules.SCHEDULE_TYPES"
    },
    "SERVE_AUTHENTICATION": [],
    "SERVE_PERMISSIONS": ["rest_framework.permissions.AllowAny"],
    "SWAGGER_UI_DIST": "SIDECAR",
    "SWAGGER_UI_FAVICON_HREF": "SIDECAR",
    "REDOC_DIST": "SIDECAR",
    # No validatorUrl: Swagger UI would load a badge from validator.swagger.io.
    "SWAGGER_UI_SETTINGS": {
        "persistAuthorization": False,
        "deepLinking": True,
        "validatorUrl": None,
    },
    "SERVERS": [{"url": BASE_URL}],
}

SIMPLE_JWT = {
    "ACCESS_TOKEN_LIFETIME": timedelta(minutes=15),
    "REFRESH_TOKEN_LIFETIME": timedelta(days=7),
    "ROTATE_REFRESH_TOKENS": True,
    # Pinned: tokens with any other "alg" (including "none") are refused.
    "ALGORITHM": "HS256",
    "SIGNING_KEY": hashlib.sha256(b"jwt:" + SECRET_KEY.encode()).hexdigest(),
    "USER_ID_CLAIM": "sub",
    "AUTH_HEADER_TYPES": ("Bearer",),
    "UPDATE_LAST_LOGIN": False,
}
# Absolute lifetime of a sign-in: refreshing never carries a token past this much
# time after the login that started its chain (config/api/auth.py).
JWT_SIGN_IN_LIFETIME = timedelta(days=30)

# Rate limits (DESIGN section 4): per merchant plan, per calendar minute.
RATE_LIMITS = {
    "sandbox": env.int("RATE_LIMIT_SANDBOX", default=100),
    "production": env.int("RATE_LIMIT_PRODUCTION", default=500),
}
LOGIN_FAILURES_PER_ACCOUNT = 5
LOGIN_FAILURE_WINDOW_SECONDS = 15 * 60
LOGIN_REQUESTS_PER_IP_PER_MINUTE = env.int("LOGIN_REQUESTS_PER_IP_PER_MINUTE", 300)
# Merchant sign-ups (docs/operations.md), the web form and the API together: per
# client address, and per e-mail address so that sign-up cannot flood an inbox
# with our e-mails. Each is "<count>/<second|minute|hour|day>".
SIGNUP_RATE_LIMIT = env.str("SIGNUP_RATE_LIMIT", default="10/hour")
SIGNUP_RATE_LIMIT_PER_ADDRESS = env.str(
    "SIGNUP_RATE_LIMIT_PER_ADDRESS", default="3/hour"
)
# The public pay page of a pay link (/pay/<token>, DESIGN section 17): opening
# it, per client address and per link (an unknown token counts too, so that
# guessing is slow), and "send me a new link", per address and per plan.
PAY_PAGE_RATE_PER_IP = env.str("PAY_PAGE_RATE_PER_IP", default="60/minute")
PAY_PAGE_RATE_PER_LINK = env.str("PAY_PAGE_RATE_PER_LINK", default="30/minute")
PAY_LINK_RESEND_RATE_PER_IP = env.str("PAY_LINK_RESEND_RATE_PER_IP", default="10/hour")
PAY_LINK_RESEND_RATE_PER_PLAN = env.str(
    "PAY_LINK_RESEND_RATE_PER_PLAN", default="3/hour"
)
for _name, _rate in (
    ("SIGNUP_RATE_LIMIT", SIGNUP_RATE_LIMIT),
    ("SIGNUP_RATE_LIMIT_PER_ADDRESS", SIGNUP_RATE_LIMIT_PER_ADDRESS),
    ("PAY_PAGE_RATE_PER_IP", PAY_PAGE_RATE_PER_IP),
    ("PAY_PAGE_RATE_PER_LINK", PAY_PAGE_RATE_PER_LINK),
    ("PAY_LINK_RESEND_RATE_PER_IP", PAY_LINK_RESEND_RATE_PER_IP),
    ("PAY_LINK_RESEND_RATE_PER_PLAN", PAY_LINK_RESEND_RATE_PER_PLAN),
):
    try:
        parse_rate(_rate)
    except ValueError as error:
        raise ImproperlyConfigured(f"{_name}: {error}") from None

# Operations (docs/operations.md, "Health, readiness and metrics"). /metrics
# answers only the bearer METRICS_TOKEN, and 404 while it is unset. Several web
# processes add up their request metrics through PROMETHEUS_MULTIPROC_DIR, which
# prometheus_client reads from the environment itself (config/gunicorn.py).
METRICS_TOKEN = env.str("METRICS_TOKEN", default="")
if METRICS_TOKEN and len(METRICS_TOKEN) < 32:
    raise ImproperlyConfigured(
        "METRICS_TOKEN must be at least 32 characters "
        '(python -c "import secrets; print(secrets.token_urlsafe(32))").'
    )
# /readyz wants a task cluster whose heartbeat is at most this old (seconds).
# django-q2 writes it twice a second with a 3-second lifetime; the margin is for
# clocks that differ between machines.
CLUSTER_HEARTBEAT_MAX_AGE = env.int("CLUSTER_HEARTBEAT_MAX_AGE", default=30)

# One line per record: plain text by default, one JSON object with LOG_FORMAT=json.
# Either way every record logged while a request is served carries its id.
LOG_FORMAT = env.str("LOG_FORMAT", default="plain")
if LOG_FORMAT not in ("plain", "json"):
    raise ImproperlyConfigured("LOG_FORMAT must be 'plain' or 'json'.")
LOG_LEVEL = env.str("LOG_LEVEL", default="INFO")
LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "filters": {"request_id": {"()": "config.api.request_id.RequestIdLogFilter"}},
    "formatters": {
        "plain": {
            "format": "%(asctime)s %(levelname)s [%(request_id)s] %(name)s: %(message)s"
        },
        "json": {
            "()": "pythonjsonlogger.json.JsonFormatter",
            "fmt": "%(levelname)s %(name)s %(message)s %(request_id)s",
            "rename_fields": {"levelname": "level", "name": "logger"},
            "timestamp": True,
        },
    },
    "handlers": {
        "console": {
            "class": "logging.StreamHandler",
            "filters": ["request_id"],
            "formatter": LOG_FORMAT,
        }
    },
    "root": {"handlers": ["console"], "level": LOG_LEVEL},
    "loggers": {
        "django.request": {"handlers": ["console"], "level": "ERROR", "propagate": 0}
    },
}
