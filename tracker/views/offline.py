"""What makes SquareScores an installable app that keeps scoring without a signal: the
web app manifest, the service worker (served from the site's root, so its scope is the
whole site) and the page it shows for an address it has not kept.

The service worker is a template: it is given the addresses of the app shell (as the
static storage names them: hashed in production) and a cache version that changes with
them, so a deploy that changes the shell empties the old caches when it activates.
"""

from __future__ import annotations

import hashlib
import json
from functools import cache

from django.conf import settings
from django.contrib.staticfiles import finders
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.template.loader import get_template
from django.templatetags.static import static
from django.urls import reverse
from django.utils.translation import gettext as _
from django.views.decorators.http import require_GET

THEME_COLOUR = "#101317"  # the dark theme's background (static/css/app.css, --bg)

# The app shell: what every page needs, kept when the service worker installs.
SHELL_FILES = (
    "css/app.css",
    "js/app.js",
    "js/offline.js",
    "js/install.js",
    "django_htmx/htmx-2.min.js",
    "django_htmx/django-htmx.js",
    "favicon.svg",
    "icons/icon-192.png",
    "icons/icon-512.png",
    "icons/maskable-512.png",
    "icons/apple-touch-icon.png",
)
ICONS = (
    ("icons/icon-192.png", "192x192", "any"),
    ("icons/icon-512.png", "512x512", "any"),
    ("icons/maskable-512.png", "512x512", "maskable"),
)


@cache
def cache_version() -> str:
    """Changes when a file of the shell, the "No signal" page or the worker itself changes
    (a deploy), or when OFFLINE_CACHE_VERSION says so."""
    digest = hashlib.sha256(settings.OFFLINE_CACHE_VERSION.encode())
    for name in SHELL_FILES:
        path = finders.find(name)
        if path:
            with open(str(path), "rb") as shell_file:
                digest.update(shell_file.read())
    # The worker, and the "No signal" page it keeps in the shell with the page it extends.
    for name in ("offline/sw.js", "offline/page.html", "base.html", "offline/_bar.html"):
        template = get_template(name)
        digest.update(template.template.source.encode())  # type: ignore[attr-defined]
    return digest.hexdigest()[:12]


@require_GET
def manifest(request: HttpRequest) -> HttpResponse:
    """The web app manifest, in the language of the page that links it."""
    body = {
        "name": "SquareScores",
        "short_name": "SquareScores",
        "description": _("Tien Len scores at the table: taps, standings, who pays whom."),
        "lang": request.LANGUAGE_CODE,  # type: ignore[attr-defined]
        "start_url": reverse("home"),
        "scope": "/",
        "display": "standalone",
        "orientation": "portrait",
        "theme_color": THEME_COLOUR,
        "background_color": THEME_COLOUR,
        "icons": [
            {"src": static(name), "sizes": sizes, "type": "image/png", "purpose": purpose}
            for name, sizes, purpose in ICONS
        ],
    }
    response = HttpResponse(
        json.dumps(body, ensure_ascii=False), content_type="application/manifest+json"
    )
    response["Cache-Control"] = "no-cache"
    return response


@require_GET
def service_worker(request: HttpRequest) -> HttpResponse:
    """The service worker, at /sw.js so that it may control every page. Always asked
    again (no-cache), so a deploy reaches phones at their next visit."""
    context = {
        "version": cache_version(),
        "shell": json.dumps([reverse("offline"), *(static(name) for name in SHELL_FILES)]),
        "offline_url": json.dumps(reverse("offline")),
    }
    response = render(request, "offline/sw.js", context, content_type="text/javascript")
    response["Cache-Control"] = "no-cache"
    response["Service-Worker-Allowed"] = "/"
    return response


@require_GET
def offline(request: HttpRequest) -> HttpResponse:
    """What the service worker shows for a page it has not kept while there is no signal."""
    return render(request, "offline/page.html")
