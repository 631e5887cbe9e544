"""Take your data with you, in the API: a session's ledger as CSV and the whole session as
JSON (anyone who sees the session), the circle's backup (its members only)."""

from __future__ import annotations

from typing import Any

from django.http import HttpResponse
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, OpenApiResponse, extend_schema
from rest_framework.renderers import JSONRenderer
from rest_framework.request import Request
from rest_framework.response import Response

from tracker import backup, selectors
from tracker.access import Role, access_circle, access_session, sees_account_names
from tracker.api.base import ApiView
from tracker.api.leaderboard import CSV_MEDIA_TYPE, AnswerWithFirstRenderer
from tracker.api.schema import ERROR, reads


def attachment(name: str) -> OpenApiParameter:
    return OpenApiParameter(
        "Content-Disposition",
        {"type": "string", "pattern": r'^attachment; filename="[a-z0-9_-]+\.csv"$'},
        OpenApiParameter.HEADER,
        required=True,
        description=f'`attachment; filename="{name}"` (the page\'s download is named the same).',
        response=[200],
    )


class SessionLedgerCsvView(ApiView):
    need = {"GET": Role.VIEWER}
    renderer_classes = [JSONRenderer]
    content_negotiation_class = AnswerWithFirstRenderer

    @extend_schema(
        summary="Every deal's ledger as CSV",
        operation_id="sessions_ledger_csv",
        description="One row a ledger line, by deal and position, with a header row: "
        + ", ".join(selectors.exports.LEDGER_COLUMNS)
        + ". UTF-8 with a byte-order mark; no cell starts a formula. Refusals are JSON.",
        parameters=[attachment("<session-name>-ledger-<today>.csv")],
        responses={
            (200, CSV_MEDIA_TYPE): OpenApiResponse(
                OpenApiTypes.STR, description="The ledger as CSV (UTF-8)."
            ),
            401: ERROR,
            403: ERROR,
            404: ERROR,
        },
    )
    def get(self, request: Request, pk: int) -> HttpResponse:
        session = access_session(self.actor, pk)
        response = HttpResponse(
            selectors.session_ledger_csv(session),
            content_type=f"{CSV_MEDIA_TYPE}; charset=utf-8",
        )
        name = selectors.download_name(
            session.name, "ledger", "csv", fallback=f"session-{session.pk}"
        )
        response["Content-Disposition"] = f'attachment; filename="{name}"'
        return response


class SessionExportView(ApiView):
    need = {"GET": Role.VIEWER}

    @reads(
        OpenApiTypes.OBJECT,
        summary="The whole session as JSON",
        description="The session as the circle backup writes it (docs/backup.md), under "
        '`{"format": "squarescores.session", "version", "circle", "session"}`. Accounts are '
        "named for members only; share link tokens never.",
    )
    def get(self, request: Request, pk: int) -> Response:
        session = access_session(self.actor, pk)
        document: dict[str, Any] = backup.export_session(
            session, accounts=sees_account_names(self.actor)
        )
        return Response(document)


class CircleExportView(ApiView):
    need = {"GET": Role.MEMBER}

    @reads(
        OpenApiTypes.OBJECT,
        summary="The circle's backup",
        description="The document `manage.py export_circle` writes (docs/backup.md), share "
        "link tokens left out. Members only.",
    )
    def get(self, request: Request, pk: int) -> Response:
        circle = access_circle(self.actor, pk)
        return Response(backup.export_circle(circle))
