"""SquareScores settings, driven by environment variables.

Development needs none: DEBUG is on and the database is a SQLite file next to manage.py.
Production sets DEBUG=false, SECRET_KEY and ALLOWED_HOSTS (and usually DATABASE_URL);
`manage.py check --deploy` is clean with those. A malformed value stops start-up with a
message naming the variable, rather than being read as something else.
"""

import os
from datetime import timedelta
from pathlib import Path

from django.core.exceptions import ImproperlyConfigured

from tracker import databases
from tracker.environment import env_bool, env_int, env_list

BASE_DIR = Path(__file__).resolve().parent.parent

# --- Core -----------------------------------------------------------------------------

DEBUG = env_bool("DEBUG", True)

SECRET_KEY = os.environ.get("SECRET_KEY", "").strip()
if not SECRET_KEY:
    if not DEBUG:
        raise ImproperlyConfigured("SECRET_KEY must be set when DEBUG is false.")
    # Only ever used with DEBUG on; check --deploy flags the prefix if it leaks further.
    SECRET_KEY = "django-insecure-squarescores-development-key-do-not-use-in-production"

ALLOWED_HOSTS = env_list("ALLOWED_HOSTS", "127.0.0.1,localhost,testserver")
CSRF_TRUSTED_ORIGINS = env_list("CSRF_TRUSTED_ORIGINS")
CSRF_FAILURE_VIEW = "tracker.views.doors.csrf_failure"  # a sentence and a code, not Django's page

INSTALLED_APPS = [
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "django.contrib.staticfiles",
    "rest_framework",
    "drf_spectacular",
    "drf_spectacular_sidecar",  # Swagger UI served from here, pinned, inside the CSP
    "csp",
    "django_htmx",
    "axes",
    "tracker.apps.TrackerConfig",
]

MIDDLEWARE = [
    "tracker.middleware.RequestLogMiddleware",  # first: times and logs the whole stack
    "django.middleware.security.SecurityMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "tracker.middleware.DatabaseUnavailableMiddleware",  # 503, not 500, while it is down
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.locale.LocaleMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    "django_htmx.middleware.HtmxMiddleware",
    "csp.middleware.CSPMiddleware",
    "axes.middleware.AxesMiddleware",  # around the view: a locked-out sign-in's answer
    "tracker.middleware.RequestBodyLimitMiddleware",  # last, sync only: see its docstring
]

ROOT_URLCONF = "tracker.urls"
WSGI_APPLICATION = "tracker.wsgi.application"
ASGI_APPLICATION = "tracker.asgi.application"

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

# --- Database -------------------------------------------------------------------------
# One variable switches the database; SQLite is the default so `make run` needs nothing.

DATABASE_URL = os.environ.get("DATABASE_URL", "").strip() or f"sqlite:///{BASE_DIR / 'db.sqlite3'}"
DB_POOL = env_bool("DB_POOL", False)

DATABASES = {"default": databases.from_environment(DATABASE_URL, pool=DB_POOL)}

DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

# --- Auth -----------------------------------------------------------------------------

AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
    {"NAME": "django.contrib.auth.password_validation.NumericPasswordValidator"},
]

# django-axes first: it refuses a sign-in while its username or address is locked out,
# before the password is even checked.
AUTHENTICATION_BACKENDS = [
    "axes.backends.AxesStandaloneBackend",
    "django.contrib.auth.backends.ModelBackend",
]

LOGIN_URL = "/accounts/login/"
LOGIN_REDIRECT_URL = "/"
LOGOUT_REDIRECT_URL = "/"

# --- Sign-in lockout (django-axes) ----------------------------------------------------
# After LOGIN_FAILURE_LIMIT wrong passwords for one username (from anywhere), or from one
# address (for any usernames), sign-in is refused for LOGIN_LOCKOUT_MINUTES: the pages,
# the admin and POST /api/auth/token/ alike. Each try while locked out starts the wait
# again, so the wait a refusal names is the whole lockout.

AXES_FAILURE_LIMIT = env_int("LOGIN_FAILURE_LIMIT", 5)
AXES_COOLOFF_TIME = timedelta(minutes=env_int("LOGIN_LOCKOUT_MINUTES", 15))
AXES_LOCKOUT_PARAMETERS = ["username", "ip_address"]  # either one locks
# A sign-in clears the failures of its own username from its own address only
# (`SignInHandler`): axes would clear every failure from the address, for any username.
AXES_RESET_ON_SUCCESS = True
AXES_HANDLER = "tracker.views.lockout.SignInHandler"
AXES_LOCKOUT_CALLABLE = "tracker.views.lockout.locked_out"
AXES_CLIENT_IP_CALLABLE = "tracker.views.lockout.client_address"
AXES_VERBOSE = False
# Only failures are kept (and only until their lockout is over); a successful sign-in is
# in the request log already, and a row per sign-in would grow without end.
AXES_DISABLE_ACCESS_LOG = True
AXES_SENSITIVE_PARAMETERS = ["username", "ip_address", "password"]

# --- API tokens -----------------------------------------------------------------------
# A token not used for this many days stops working (docs/api.md, "Signing in").
API_TOKEN_IDLE_DAYS = env_int("API_TOKEN_IDLE_DAYS", 30)

# --- Language and time ----------------------------------------------------------------

LANGUAGE_CODE = "en"
# Each language named in itself, as a language picker shows it.
LANGUAGES = [("en", "English"), ("vi", "Tiếng Việt")]
LOCALE_PATHS = [BASE_DIR / "locale"]
# Our number formats (tracker/formats/): Vietnamese groups thousands: 380.000 VND.
FORMAT_MODULE_PATH = ["tracker.formats"]
USE_I18N = True
TIME_ZONE = "UTC"
USE_TZ = True

# --- Static files ---------------------------------------------------------------------

STATIC_URL = "static/"
STATIC_ROOT = BASE_DIR / "staticfiles"
STATICFILES_DIRS = [BASE_DIR / "static"]

# The manifest storage needs `collectstatic` first, so development and tests use the
# plain storage and only production gets hashed, compressed files.
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {
        "BACKEND": (
            "django.contrib.staticfiles.storage.StaticFilesStorage"
            if DEBUG
            else "whitenoise.storage.CompressedManifestStaticFilesStorage"
        ),
    },
}

# --- Request bodies -------------------------------------------------------------------
# Every request SquareScores takes is small (a tap, a correction of 20 events, a table of
# 8): a body over MAX_REQUEST_BYTES is refused with 413 before it is read
# (RequestBodyLimitMiddleware), and Django's own checks use the same figure.

DATA_UPLOAD_MAX_MEMORY_SIZE = env_int("MAX_REQUEST_BYTES", 64 * 1024)
FILE_UPLOAD_MAX_MEMORY_SIZE = DATA_UPLOAD_MAX_MEMORY_SIZE
DATA_UPLOAD_MAX_NUMBER_FIELDS = 1000

# --- Security -------------------------------------------------------------------------
# Headers that cost nothing in development are always on.

SECURE_CONTENT_TYPE_NOSNIFF = True
SECURE_REFERRER_POLICY = "same-origin"
X_FRAME_OPTIONS = "DENY"

if not DEBUG:
    SECURE_SSL_REDIRECT = env_bool("SECURE_SSL_REDIRECT", True)
    SECURE_REDIRECT_EXEMPT = [r"^healthz$"]  # load balancers probe over plain HTTP
    SESSION_COOKIE_SECURE = True
    CSRF_COOKIE_SECURE = True
    SECURE_HSTS_SECONDS = env_int("SECURE_HSTS_SECONDS", 31536000)
    SECURE_HSTS_INCLUDE_SUBDOMAINS = env_bool("SECURE_HSTS_INCLUDE_SUBDOMAINS", True)
    SECURE_HSTS_PRELOAD = env_bool("SECURE_HSTS_PRELOAD", True)
    # Only behind a proxy that sets X-Forwarded-Proto itself; otherwise a client could
    # claim HTTPS by sending the header.
    if env_bool("BEHIND_PROXY", False):
        SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")

# Content-Security-Policy on every answer (django-csp): scripts, styles, images and
# connections from this site only; nothing inline (htmx's injected indicator styles are
# turned off in base.html), no plugins, no framing. Swagger UI (/api/docs/) is served
# from this site too (drf-spectacular-sidecar) and lives within the same policy.
CONTENT_SECURITY_POLICY = {
    "DIRECTIVES": {
        "default-src": ["'self'"],
        "img-src": ["'self'", "data:"],
        "style-src": ["'self'"],
        "script-src": ["'self'"],
        "connect-src": ["'self'"],
        "worker-src": ["'self'"],  # the service worker, /sw.js
        "manifest-src": ["'self'"],
        "form-action": ["'self'"],
        "base-uri": ["'self'"],
        "object-src": ["'none'"],
        "frame-ancestors": ["'none'"],
    }
}

# Added to the service worker's cache version (tracker.views.offline): change it to empty
# every phone's kept pages at the next deploy.
OFFLINE_CACHE_VERSION = os.environ.get("OFFLINE_CACHE_VERSION", "1")

# --- Caches ---------------------------------------------------------------------------
# Per process: the default, and answers kept by a session's version (tracker.answers).
# Throttle counters, shared by all workers and servers, are in the database (migration 0003).
_LOCAL = "django.core.cache.backends.locmem.LocMemCache"
CACHES = {
    "default": {"BACKEND": _LOCAL},
    "answers": {"BACKEND": _LOCAL, "LOCATION": "answers", "OPTIONS": {"MAX_ENTRIES": 5000}},
    "throttle": {
        "BACKEND": "django.core.cache.backends.db.DatabaseCache",
        "LOCATION": "throttle_cache",
        "OPTIONS": {"MAX_ENTRIES": 100_000},
    },
}

# --- Throttling -----------------------------------------------------------------------
# "auth": token requests per client IP; "writes": API writes per account or share link;
# "signup": accounts made per client IP; "signup_tries": sign-up forms sent per client IP.
# Reads are not throttled. THROTTLE_RATES_OFF=true turns both off (the load benchmark).

_RATE_PERIODS = {"s", "m", "h", "d"}


def env_rate(name: str, default: str) -> str:
    """A DRF rate such as `10/min`: a whole number, a slash, then second/minute/hour/day."""
    raw = os.environ.get(name, "").strip() or default
    count, _, period = raw.partition("/")
    if not count.isdigit() or int(count) < 1 or period[:1] not in _RATE_PERIODS:
        raise ImproperlyConfigured(
            f"{name}={raw!r} is not a rate: use requests per period, like 10/min or 500/hour."
        )
    return raw


THROTTLE_RATES_OFF = env_bool("THROTTLE_RATES_OFF", False)
THROTTLE_RATES: dict[str, str | None] = {
    "auth": None if THROTTLE_RATES_OFF else env_rate("THROTTLE_AUTH", "10/min"),
    "writes": None if THROTTLE_RATES_OFF else env_rate("THROTTLE_WRITES", "120/min"),
    "signup": None if THROTTLE_RATES_OFF else env_rate("THROTTLE_SIGNUP", "5/hour"),
    "signup_tries": None if THROTTLE_RATES_OFF else env_rate("THROTTLE_SIGNUP_TRIES", "30/hour"),
}

# --- API ------------------------------------------------------------------------------

REST_FRAMEWORK = {
    "DEFAULT_AUTHENTICATION_CLASSES": [
        "tracker.api.authentication.ApiTokenAuthentication",
        "rest_framework.authentication.SessionAuthentication",
    ],
    "DEFAULT_PERMISSION_CLASSES": ["rest_framework.permissions.IsAuthenticated"],
    "DEFAULT_SCHEMA_CLASS": "drf_spectacular.openapi.AutoSchema",
    "DEFAULT_THROTTLE_RATES": THROTTLE_RATES,
    # The client address for per-IP throttling: REMOTE_ADDR, or behind a proxy the address
    # that proxy put last in X-Forwarded-For. Never a header the client chose itself.
    "NUM_PROXIES": 1 if env_bool("BEHIND_PROXY", False) else 0,
}

SPECTACULAR_SETTINGS = {
    "TITLE": "SquareScores API",
    "DESCRIPTION": "Score Tien Len at a real table: taps, stakes, standings and settlement.",
    "VERSION": "1.0.0",
    "SERVE_INCLUDE_SCHEMA": False,
    # A PATCH here replaces the one field it names, so the field stays required
    # (no "Patched..." component with every field optional).
    "COMPONENT_SPLIT_PATCH": False,
    # Bodies are documented as JSON only: the form parsers the views also accept cannot
    # carry nested fields (session `options`, correction `add_events`).
    "PARSER_WHITELIST": ["rest_framework.parsers.JSONParser"],
    # Swagger UI's files come with the app (drf-spectacular-sidecar), not from a CDN.
    "SWAGGER_UI_DIST": "SIDECAR",
    "SWAGGER_UI_FAVICON_HREF": "SIDECAR",
    "REDOC_DIST": "SIDECAR",
    # The schema describes /api/v1/; the unversioned paths are the same views again.
    "PREPROCESSING_HOOKS": ["tracker.api.schema.versioned_paths_only"],
    "POSTPROCESSING_HOOKS": [
        "drf_spectacular.hooks.postprocess_schema_enums",
        "tracker.api.schema.closed_objects",
    ],
}

# --- Logging --------------------------------------------------------------------------

LOG_LEVEL = os.environ.get("LOG_LEVEL", "").strip().upper() or "INFO"
if LOG_LEVEL not in {"DEBUG", "INFO", "WARNING", "ERROR", "CRITICAL"}:
    raise ImproperlyConfigured(
        f"LOG_LEVEL={LOG_LEVEL!r} is not one of DEBUG, INFO, WARNING, ERROR, CRITICAL."
    )

LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "formatters": {
        "plain": {"format": "{asctime} {levelname} {name}: {message}", "style": "{"},
        "json": {"()": "tracker.logs.JsonLinesFormatter"},
    },
    "filters": {
        "hide_share_tokens": {"()": "tracker.logs.HideShareTokens"},
    },
    "handlers": {
        "console": {
            "class": "logging.StreamHandler",
            "formatter": "plain",
            "filters": ["hide_share_tokens"],
        },
        "requests": {
            "class": "logging.StreamHandler",
            "stream": "ext://sys.stdout",
            "formatter": "json",
        },
    },
    "root": {"handlers": ["console"], "level": LOG_LEVEL},
    "loggers": {
        # Replace Django's own handlers (console only with DEBUG, mail to admins) so each
        # record is printed once, at the chosen level.
        "django": {"handlers": ["console"], "level": LOG_LEVEL, "propagate": False},
        # The access log: one JSON line per request on stdout (tracker.middleware).
        "squarescores.requests": {"handlers": ["requests"], "level": "INFO", "propagate": False},
    },
}
