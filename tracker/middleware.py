"""Middleware for running in production: a log line per request, a clear 503 while the
database is unreachable, and a 413 for a body over the limit before it is read."""

from __future__ import annotations

import logging
import sys
import time
from collections.abc import Callable
from typing import Any

from django.conf import settings
from django.core.handlers.asgi import ASGIRequest
from django.core.signals import got_request_exception
from django.db import InterfaceError, OperationalError
from django.http import HttpRequest, HttpResponse, HttpResponseBase, JsonResponse
from django.utils.functional import SimpleLazyObject
from django.utils.translation import gettext_lazy

from tracker.logs import hide_share_token
from tracker.models import ShareLink

request_logger = logging.getLogger("squarescores.requests")
database_logger = logging.getLogger("squarescores.database")

GetResponse = Callable[[HttpRequest], HttpResponseBase]


def loggable_path(request: HttpRequest) -> str:
    return hide_share_token(request.path, request)


def _user_id(request: HttpRequest) -> int | None:
    # Only a user that the request already looked up. Looking it up here would cost two
    # queries on requests that never needed it (static files, /healthz), and fail while
    # the database is down. DRF replaces the lazy user with the one it authenticated; an
    # answer from a glance (`tracker.glance`: the API's, a page's) read only the ids
    # (`caller_ids`).
    if "caller_ids" in vars(request):
        return request.caller_ids[0]  # type: ignore[attr-defined,no-any-return]
    user: Any = vars(request).get("user")
    if isinstance(user, SimpleLazyObject):
        user = getattr(request, "_cached_user", None)
    if user is None or not user.is_authenticated:
        return None
    return user.pk


def _share_link_id(request: HttpRequest) -> int | None:
    # The API's share link authentication leaves the link in `request.auth`; pages that
    # work through a link may set `request.share_link`.
    if "caller_ids" in vars(request):
        return request.caller_ids[1]  # type: ignore[attr-defined,no-any-return]
    for name in ("auth", "share_link"):
        link = vars(request).get(name)
        if isinstance(link, ShareLink):
            return link.pk
    return None


class RequestLogMiddleware:
    """One JSON line per request on the `squarescores.requests` logger.

    Goes first in MIDDLEWARE, so the duration covers the whole stack and the status is
    the one the client got.
    """

    def __init__(self, get_response: GetResponse) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponseBase:
        started = time.perf_counter()
        response = self.get_response(request)
        log_request(request, response, started)
        return response


def log_request(request: HttpRequest, response: HttpResponseBase, started: float) -> None:
    """The request's line on the request log (`started`: its `time.perf_counter()`)."""
    duration_ms = round((time.perf_counter() - started) * 1000, 1)
    path = loggable_path(request)
    fields = {
        "method": request.method,
        "path": path,
        "status": response.status_code,
        "duration_ms": duration_ms,
        "user": _user_id(request),
        "share_link": _share_link_id(request),
        "remote_addr": request.META.get("REMOTE_ADDR"),
    }
    forwarded_for = request.META.get("HTTP_X_FORWARDED_FOR")
    if forwarded_for:
        fields["forwarded_for"] = forwarded_for
    request_logger.info(
        "%s %s %s", request.method, path, response.status_code, extra={"fields": fields}
    )


# --- The database is down -------------------------------------------------------------

UNAVAILABLE = "The database is unavailable; try again in a moment."
RETRY_AFTER_SECONDS = 5
# What a lost or restarting database raises (connection refused, pool timeout, server
# closed the connection...). OperationalError also covers deadlocks and serialization
# failures, for which "try again" is the right answer too.
DATABASE_DOWN = (OperationalError, InterfaceError)


def unavailable_response(request: HttpRequest) -> HttpResponse:
    """503 with Retry-After: JSON for the API and JSON clients, else a plain sentence."""
    wants_json = request.path.startswith("/api/") or (
        request.get_preferred_type(["text/html", "application/json"]) == "application/json"
    )
    response: HttpResponse
    if wants_json:
        response = JsonResponse({"detail": UNAVAILABLE}, status=503)
    else:
        response = HttpResponse(UNAVAILABLE, status=503, content_type="text/plain; charset=utf-8")
    response["Retry-After"] = str(RETRY_AFTER_SECONDS)
    response["Cache-Control"] = "no-store"
    return response


def _note_database_down(sender: object, request: HttpRequest | None = None, **kwargs: Any) -> None:
    """Mark a request whose uncaught exception (outside a view) was the database's."""
    if request is not None and isinstance(sys.exc_info()[1], DATABASE_DOWN):
        request.database_down = True  # type: ignore[attr-defined]


class DatabaseUnavailableMiddleware:
    """Answer 503 instead of 500 when the database cannot be reached.

    A view's error arrives in `process_exception`. An error in another middleware (a
    session saved on the way out, say) has already become a 500 response by the time it
    gets here; `got_request_exception` marked the request, and the 500 is replaced.
    """

    def __init__(self, get_response: GetResponse) -> None:
        self.get_response = get_response
        got_request_exception.connect(
            _note_database_down, dispatch_uid="tracker.middleware.database_down"
        )

    def __call__(self, request: HttpRequest) -> HttpResponseBase:
        response = self.get_response(request)
        if response.status_code == 500 and getattr(request, "database_down", False):
            return unavailable_response(request)
        return response

    def process_exception(self, request: HttpRequest, exception: Exception) -> HttpResponse | None:
        if not isinstance(exception, DATABASE_DOWN):
            return None
        database_logger.warning(
            "Database unavailable during %s %s: %s",
            request.method,
            loggable_path(request),
            exception,
        )
        return unavailable_response(request)


# --- Request bodies ---------------------------------------------------------------------

BODY_TOO_LARGE = gettext_lazy("The request body is too large: at most %(most)s bytes.")


class RequestBodyLimitMiddleware:
    """Refuse a body over `DATA_UPLOAD_MAX_MEMORY_SIZE` bytes (its Content-Length) with
    413, before anything reads it: on every endpoint, sign-in and uploads included (Django
    checks the size only when a view reads `request.body` or `request.POST`, and DRF's
    parsers read the stream). JSON under /api/, a sentence elsewhere.

    It is the last middleware, and synchronous only, on purpose: under ASGI (`make serve`)
    Django adapts the chain where a middleware's mode changes. With this one innermost, the
    whole chain and the view run in one thread, handed over once; placed earlier, each
    middleware inside it ran its `process_request`/`process_response` by a hand-over of its
    own, a dozen a request (docs/performance.md, session 6: /healthz 4.1 → 2.4 ms, a tap
    19.9 → 14.5 ms). It still answers before anything reads the body: views read it after
    every middleware has been called. (Under ASGI, Django's handler would take the whole
    body in before any middleware runs; `tracker.asgi.BodyLimit` keeps it from that.)
    """

    def __init__(self, get_response: GetResponse) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponseBase:
        most = settings.DATA_UPLOAD_MAX_MEMORY_SIZE
        try:
            length = int(request.META.get("CONTENT_LENGTH") or 0)
        except ValueError:
            length = 0  # Django reads a malformed length as no body, and so do we
        if most is None or length <= most:
            return self.get_response(request)
        return body_too_large(request.path, most, close=isinstance(request, ASGIRequest))


def body_too_large(path: str, most: int, *, close: bool) -> HttpResponse:
    """The 413 for a body over `most` bytes: JSON under /api/, a sentence elsewhere.
    `close` (`Connection: close`) only for an ASGI server (the rest of the body is never
    read); a WSGI application may not send it (PEP 3333: runserver answered 500)."""
    detail = str(BODY_TOO_LARGE) % {"most": most}
    response: HttpResponse
    if path.startswith("/api/"):
        response = JsonResponse({"detail": detail, "code": "body_too_large"}, status=413)
    else:
        response = HttpResponse(detail, status=413, content_type="text/plain; charset=utf-8")
    if close:
        response["Connection"] = "close"
    return response
