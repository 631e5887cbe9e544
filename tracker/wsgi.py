"""WSGI entry point, e.g. `gunicorn tracker.wsgi`."""

import os

from django.core.wsgi import get_wsgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "tracker.settings")

application = get_wsgi_application()
