"""A served process loads its URLconf, and with it every view, as it starts, not at its
first request (`tracker.asgi`, `tracker.wsgi`): a new worker's first second of requests
used to wait for half a second of imports (docs/performance.md, session 20)."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from tests.production.conftest import REPO_ROOT

LOADED = (
    "import sys, tracker.{entry}; "
    "print(all(name in sys.modules for name in "
    "('tracker.urls', 'tracker.api.deals', 'tracker.views.live', 'rest_framework.views')))"
)


@pytest.mark.parametrize("entry", ["asgi", "wsgi"])
def test_the_application_has_its_views_loaded_before_its_first_request(entry):
    started = subprocess.run(
        [sys.executable, "-c", LOADED.format(entry=entry)],
        cwd=REPO_ROOT,
        env={**os.environ, "DJANGO_SETTINGS_MODULE": "tracker.settings"},
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert started.returncode == 0, started.stderr
    assert started.stdout.strip() == "True"
