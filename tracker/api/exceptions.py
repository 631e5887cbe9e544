"""Every refusal as `{"detail": "<a sentence>", "code": "<stable code>"}` with the right
status; never a 500 for something a client sent.

- A `Refusal` (from access, the write gate or a service) keeps its status, code and
  message; a throttled write says how long to wait in `Retry-After`.
- Validation errors become one readable sentence in `detail`, and the field-by-field
  messages in `fields` (`{"stake": ["..."]}`, nested paths joined with dots).
- A body that is not JSON, or not a JSON object, is a 400 that says so; one too large is
  a 413, one with too many form fields a 400 (Django's own checks, said in JSON).
- A database constraint or lock that stops a write (a race the row locks should already
  prevent) is a 409 "try again", not a 500.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from django.conf import settings
from django.core.exceptions import (
    RequestDataTooBig,
    SuspiciousOperation,
    TooManyFieldsSent,
    TooManyFilesSent,
)
from django.db import IntegrityError, OperationalError, connection
from django.http import HttpRequest, HttpResponse, HttpResponsePermanentRedirect, JsonResponse
from django.urls import Resolver404, resolve
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy
from django.views.decorators.csrf import csrf_exempt
from django.views.defaults import page_not_found, permission_denied
from rest_framework import status
from rest_framework.exceptions import APIException, ParseError, ValidationError
from rest_framework.response import Response
from rest_framework.views import exception_handler as drf_exception_handler

from tracker.errors import Refusal

# PostgreSQL refusals that mean "someone else got there first; try again".
RETRYABLE_SQLSTATES = {
    "40001",  # serialization_failure
    "40P01",  # deadlock_detected
    "55P03",  # lock_not_available
}
TRY_AGAIN = gettext_lazy("Someone else changed this at the same moment; look again and retry.")


def api_exception_handler(exc: Exception, context: dict[str, Any]) -> Response | None:
    if isinstance(exc, Refusal):
        wait = getattr(exc, "wait", None)  # over a rate, locked out: when to retry
        headers = {"Retry-After": str(wait)} if wait is not None else None
        return Response(
            {"detail": exc.message, "code": exc.code}, status=exc.status, headers=headers
        )
    if isinstance(exc, IntegrityError) or (
        isinstance(exc, OperationalError) and _sqlstate(exc) in RETRYABLE_SQLSTATES
    ):
        return Response(
            {"detail": str(TRY_AGAIN), "code": "try_again"}, status=status.HTTP_409_CONFLICT
        )
    if isinstance(exc, RequestDataTooBig):
        return Response(
            {
                "detail": _("The request body is too large: at most %(most)s bytes.")
                % {"most": settings.DATA_UPLOAD_MAX_MEMORY_SIZE},
                "code": "body_too_large",
            },
            status=status.HTTP_413_REQUEST_ENTITY_TOO_LARGE,
        )
    if isinstance(exc, TooManyFieldsSent | TooManyFilesSent):
        return Response(
            {
                "detail": _("The request has too many fields: at most %(most)s.")
                % {"most": settings.DATA_UPLOAD_MAX_NUMBER_FIELDS},
                "code": "too_many_fields",
            },
            status=status.HTTP_400_BAD_REQUEST,
        )
    if isinstance(exc, SuspiciousOperation):
        return Response(
            {"detail": _("The request is not valid."), "code": "bad_request"},
            status=status.HTTP_400_BAD_REQUEST,
        )
    if isinstance(exc, ParseError) and str(exc.detail).startswith("JSON parse error"):
        exc = ParseError(_("The request body is not valid JSON."))
    if isinstance(exc, ValidationError):
        return Response(
            {
                "detail": validation_sentence(exc.detail),
                "code": "invalid",
                "fields": _by_path(exc.detail),
            },
            status=status.HTTP_400_BAD_REQUEST,
        )
    response = drf_exception_handler(exc, context)
    if response is not None:
        detail = response.data.get("detail") if isinstance(response.data, dict) else None
        code = _code(exc)
        response.data = {
            "detail": str(detail if detail is not None else response.data),
            "code": code,
        }
    return response


def _code(exc: Exception) -> str:
    """The stable code: the one the exception was raised with (`token_expired`), else its
    class's (`not_authenticated`)."""
    if not isinstance(exc, APIException):
        return "error"
    code = getattr(exc.detail, "code", None)
    return str(code) if isinstance(code, str) else str(exc.default_code)


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


def _no_connection_left(answer: HttpResponse) -> HttpResponse:
    """Under ASGI (`make serve`) Django draws the answer to an exception (a URL that
    matches nothing, PermissionDenied) in a thread of the loop's pool, not the request's
    (`response_for_exception`, `thread_sensitive=False`). The page reads the signed-in
    user there, and nothing would close that thread's connection: one held out of the
    pool for good by each such thread. Closed here, unless a transaction holds it."""
    if not connection.in_atomic_block:
        connection.close()
    return answer


def not_found(request: HttpRequest, exception: Exception) -> HttpResponse:
    """404 for a page address that matches nothing (every /api/ address has a route:
    `api_nowhere`)."""
    return _no_connection_left(page_not_found(request, exception))


@csrf_exempt  # it changes nothing, and a write sent here must get JSON, not the 403 page
def api_nowhere(request: HttpRequest) -> HttpResponse:
    """The API's last route: every /api/ address no other route takes, and /api itself.

    Django answers a URL that matches nothing with `handler404` only when DEBUG is off;
    `make run` has it on, and there an API client got Django's HTML page for a 404, and a
    500 for a POST without its last slash (CommonMiddleware refuses to redirect a body
    with APPEND_SLASH). Here every address gets JSON. A GET without its last slash is
    still redirected (as APPEND_SLASH did); a write is told to add it, since a redirect
    would lose its body."""
    if not request.path.endswith("/") and _taken(f"{request.path_info}/"):
        if request.method in ("GET", "HEAD"):
            return HttpResponsePermanentRedirect(request.get_full_path(force_append_slash=True))
        detail, code = (
            _("This address ends with a slash: %(path)s") % {"path": f"{request.path}/"},
            "slash_missing",
        )
    else:
        detail, code = _("There is nothing at this address; check the id in the URL."), "not_found"
    return JsonResponse({"detail": detail, "code": code}, status=404)


def _taken(path: str) -> bool:
    """Whether a route other than this last one takes `path`."""
    try:
        return resolve(path).func is not api_nowhere
    except Resolver404:
        return False


def forbidden(request: HttpRequest, exception: Exception) -> HttpResponse:
    """Django's 403 page (templates/403.html), its connection closed as for a 404."""
    return _no_connection_left(permission_denied(request, exception))
