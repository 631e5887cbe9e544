"""Helpers of the production tests: the request log's records (`request_log`),
requests sent through Django's ASGI handler (`asgi`, `tap_under_asgi`), as `make serve`
serves them, and a setting as a process started with some environment reads it
(`setting_in_subprocess`)."""

from __future__ import annotations

import logging
import os
import subprocess
import sys
from pathlib import Path

import pytest
from asgiref.sync import async_to_sync
from django.test import AsyncClient

REPO_ROOT = Path(__file__).resolve().parents[2]


class Keep(logging.Handler):
    def __init__(self) -> None:
        super().__init__()
        self.records: list[logging.LogRecord] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.records.append(record)


@pytest.fixture
def request_log():
    """The request log's records; the logger does not propagate, so caplog cannot see it."""
    keep = Keep()
    logger = logging.getLogger("squarescores.requests")
    logger.addHandler(keep)
    yield keep.records
    logger.removeHandler(keep)


def asgi(client: AsyncClient, method: str, path: str, **kwargs):
    """`client.<method>(path, ...)` through the ASGI handler, from a synchronous test."""

    async def sending():
        return await getattr(client, method)(path, **kwargs)

    return async_to_sync(sending)()


def tap_under_asgi(token: str, deal_id: int, player_id: int, key: str):
    """A tap through the API with the token and an Idempotency-Key, under ASGI."""
    return asgi(
        AsyncClient(),
        "post",
        f"/api/deals/{deal_id}/taps/",
        data={"player": player_id},
        content_type="application/json",
        headers={"Authorization": f"Token {token}", "Idempotency-Key": key},
    )


def setting_in_subprocess(
    expression: str, *, leave_out: tuple[str, ...], **env: str
) -> subprocess.CompletedProcess[str]:
    """What `expression` (of `settings`) prints in a new process with `env`: settings are
    read from the environment once a process. This process's variables that start with
    one of `leave_out` are not passed on, so the settings' defaults show."""
    code = f"import django; django.setup(); from django.conf import settings; print({expression})"
    inherited = {
        name: value for name, value in os.environ.items() if not name.startswith(leave_out)
    }
    return subprocess.run(
        [sys.executable, "-c", code],
        cwd=REPO_ROOT,
        env={**inherited, "DJANGO_SETTINGS_MODULE": "tracker.settings", **env},
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )


def http_scope(method: str, path: str, headers: list[tuple[bytes, bytes]]) -> dict:
    """An ASGI HTTP request's scope, as uvicorn hands one to `tracker.asgi.application`."""
    return {
        "type": "http",
        "asgi": {"version": "3.0"},
        "http_version": "1.1",
        "method": method,
        "scheme": "http",
        "path": path,
        "raw_path": path.encode(),
        "root_path": "",
        "query_string": b"",
        "headers": headers,
        "client": ("10.0.0.1", 1234),
        "server": ("testserver", 80),
    }
