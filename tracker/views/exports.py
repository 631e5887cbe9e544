"""Downloads from the pages: a session's ledger as CSV and the whole session as JSON (for
whoever sees the session), and the circle's backup (its members only)."""

from __future__ import annotations

import json
from typing import Any

from django.http import HttpRequest, HttpResponse

from tracker import backup, selectors
from tracker.access import sees_account_names
from tracker.views.doors import SessionPage, member_circle, member_page, session_page


def _download(body: str, content_type: str, filename: str) -> HttpResponse:
    response = HttpResponse(body, content_type=f"{content_type}; charset=utf-8")
    response["Content-Disposition"] = f'attachment; filename="{filename}"'
    return response


def _json(document: dict[str, Any]) -> str:
    return json.dumps(document, indent=2, ensure_ascii=False) + "\n"


@session_page()
def ledger_csv(request: HttpRequest, page: SessionPage) -> HttpResponse:
    session = page.session
    return _download(
        selectors.session_ledger_csv(session),
        "text/csv",
        selectors.download_name(session.name, "ledger", "csv", fallback=f"session-{session.pk}"),
    )


@session_page()
def session_json(request: HttpRequest, page: SessionPage) -> HttpResponse:
    session = page.session
    document = backup.export_session(session, accounts=sees_account_names(page.actor))
    return _download(
        _json(document),
        "application/json",
        selectors.download_name(session.name, "session", "json", fallback=f"session-{session.pk}"),
    )


@member_page()
def circle_backup(request: HttpRequest, circle_id: int) -> HttpResponse:
    circle = member_circle(request, circle_id)
    return _download(
        _json(backup.export_circle(circle)),
        "application/json",
        selectors.download_name(circle.name, "backup", "json", fallback=f"circle-{circle.pk}"),
    )
