"""A served process loads its URLconf, and with it every view, as it starts, not at its
first request (`tracker.asgi`): a new worker's first second of requests used to wait for
half a second of imports (docs/performance.md, session 20)."""

from __future__ import annotations

import os
import subprocess
import sys

from tests.production.conftest import REPO_ROOT

LOADED = (
    "import sys, tracker.asgi; "
    "print(all(name in sys.modules for name in "
    "('tracker.urls', 'tracker.api.deals', 'tracker.views.live', 'rest_framework.views')))"
)


def test_the_asgi_application_has_its_views_loaded_before_its_first_request():
    started = subprocess.run(
        [sys.executable, "-c", LOADED],
        cwd=REPO_ROOT,
        env={**os.environ, "DJANGO_SETTINGS_MODULE": "tracker.settings"},
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert started.returncode == 0, started.stderr
    assert started.stdout.strip() == "True"
