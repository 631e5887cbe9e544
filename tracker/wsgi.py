"""WSGI entry point, e.g. `gunicorn tracker.wsgi`."""

import os

from django.core.wsgi import get_wsgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "tracker.settings")

application = get_wsgi_application()

from django.urls import get_resolver  # noqa: E402  (settings are set up above)

# The URLconf loaded as the process starts, not by its first request (as in tracker.asgi).
get_resolver().url_patterns  # noqa: B018  (read for its imports)
