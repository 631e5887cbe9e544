"""A sign-in refused for too many wrong passwords, as every door says it.

django-axes counts the failures (settings: AXES_*) and calls `locked_out` for the answer
of a locked-out sign-in: the login pages, the admin's and `POST /api/auth/token/`. The API
gets `{"detail", "code": "locked_out"}`, a page the sentence; both 429 with
`Retry-After`. Axes asks `client_address` for the address it counts by: the same one the
API's per-address throttle uses.
"""

from __future__ import annotations

import ipaddress
from typing import Any

from django.conf import settings
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.utils.cache import add_never_cache_headers

from tracker.errors import LockedOut
from tracker.views.doors import refused


def locked_out(
    request: HttpRequest, original_response: HttpResponse | None = None, credentials: Any = None
) -> HttpResponse:
    refusal = LockedOut()
    response: HttpResponse
    if request.path.startswith("/api/"):
        response = JsonResponse(
            {"detail": refusal.message, "code": refusal.code}, status=refusal.status
        )
    else:
        response = refused(request, refusal)
    response["Retry-After"] = str(refusal.wait)
    add_never_cache_headers(response)
    return response


def client_address(request: Any) -> str | None:
    """The client's address: REMOTE_ADDR, or behind a proxy (BEHIND_PROXY) the address
    the proxy put last in X-Forwarded-For, never one the client chose (as DRF's
    NUM_PROXIES reads it for the API's throttles). What the proxy put there is used only if
    it is an IP address: anything else (a proxy passing on what it was sent) counts as the
    proxy's own address, and never reaches the counters' columns (django-axes stores an
    IP address; the sign-up counters' scope holds 60 characters)."""
    meta = request.META
    if settings.REST_FRAMEWORK.get("NUM_PROXIES"):
        forwarded = [part.strip() for part in meta.get("HTTP_X_FORWARDED_FOR", "").split(",")]
        forwarded = [part for part in forwarded if part]
        if forwarded and _is_ip(forwarded[-1]):
            return forwarded[-1]
    address = meta.get("REMOTE_ADDR")
    return str(address) if address else None


def _is_ip(text: str) -> bool:
    try:
        ipaddress.ip_address(text)
    except ValueError:
        return False
    return True
