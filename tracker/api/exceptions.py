"""Every refusal as `{"detail": "<a sentence>"}` with the right status; never a 500 for
something a client sent.

- `ServiceError` (the services' refusals) keeps its status and message.
- Validation errors become one readable sentence in `detail`, and the field-by-field
  messages in `fields` (`{"stake": ["..."]}`, nested paths joined with dots).
- A body that is not JSON, or not a JSON object, is a 400 that says so.
- A database constraint or lock that stops a write (a race the row locks should already
  prevent) is a 409 "try again", not a 500.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from django.db import IntegrityError, OperationalError
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy
from django.views.defaults import page_not_found
from rest_framework import status
from rest_framework.exceptions import APIException, ParseError, ValidationError
from rest_framework.response import Response
from rest_framework.views import exception_handler as drf_exception_handler

from tracker.services import ServiceError

# PostgreSQL refusals that mean "someone else got there first; try again".
RETRYABLE_SQLSTATES = {
    "40001",  # serialization_failure
    "40P01",  # deadlock_detected
    "55P03",  # lock_not_available
}
TRY_AGAIN = gettext_lazy("Someone else changed this at the same moment; look again and retry.")


class KeyReused(APIException):
    status_code = 422
    default_detail = gettext_lazy(
        "This Idempotency-Key was already used for a different request; "
        "send a new key with a new request."
    )
    default_code = "idempotency_key_reused"


class StillRunning(APIException):
    status_code = status.HTTP_409_CONFLICT
    default_detail = gettext_lazy(
        "The first request with this Idempotency-Key is still running; "
        "retry in a moment to get its answer."
    )
    default_code = "idempotency_key_running"


def api_exception_handler(exc: Exception, context: dict[str, Any]) -> Response | None:
    if isinstance(exc, ServiceError):
        return Response({"detail": exc.message}, status=exc.status)
    if isinstance(exc, IntegrityError) or (
        isinstance(exc, OperationalError) and _sqlstate(exc) in RETRYABLE_SQLSTATES
    ):
        return Response({"detail": str(TRY_AGAIN)}, status=status.HTTP_409_CONFLICT)
    if isinstance(exc, ParseError) and str(exc.detail).startswith("JSON parse error"):
        exc = ParseError(_("The request body is not valid JSON."))
    if isinstance(exc, ValidationError):
        return Response(
            {"detail": validation_sentence(exc.detail), "fields": _by_path(exc.detail)},
            status=status.HTTP_400_BAD_REQUEST,
        )
    response = drf_exception_handler(exc, context)
    if response is not None and not isinstance(response.data, dict):
        response.data = {"detail": str(response.data)}
    return response


def _sqlstate(exc: Exception) -> str | None:
    return getattr(exc.__cause__, "sqlstate", None)


def _messages(detail: Any, path: str = "") -> Iterator[tuple[str, str]]:
    """(field path, message) for every message in a DRF error structure."""
    if isinstance(detail, dict):
        for key, value in detail.items():
            name = "" if key == "non_field_errors" else str(key)
            yield from _messages(value, f"{path}.{name}" if path and name else path or name)
    elif isinstance(detail, list):
        for item in detail:
            yield from _messages(item, path)
    else:
        yield path, str(detail)


def validation_sentence(detail: Any) -> str:
    """`stake: The stake must be more than 0. name: This field is required.`"""
    parts = [
        _("%(field)s: %(message)s") % {"field": path, "message": message} if path else message
        for path, message in _messages(detail)
    ]
    return " ".join(parts) or _("The request is not valid.")


def _by_path(detail: Any) -> dict[str, list[str]]:
    fields: dict[str, list[str]] = {}
    for path, message in _messages(detail):
        fields.setdefault(path or "body", []).append(message)
    return fields


def not_found(request: HttpRequest, exception: Exception) -> HttpResponse:
    """404 for a URL that matches nothing: a JSON sentence under /api/, the page elsewhere."""
    if request.path.startswith("/api/"):
        return JsonResponse(
            {"detail": _("There is nothing at this address; check the id in the URL.")},
            status=404,
        )
    return page_not_found(request, exception)
