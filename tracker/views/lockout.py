"""A sign-in refused for too many wrong passwords, as every door says it.

django-axes counts the failures (settings: AXES_*) and calls `locked_out` for the answer
of a locked-out sign-in: the login pages, the admin's and `POST /api/auth/token/`. The API
gets `{"detail", "code": "locked_out"}`, a page the sentence; both 429 with
`Retry-After`. Axes asks `client_address` for the address it counts by: the same one the
API's per-address throttle uses, and `SignInHandler` stores and clears the failures.
"""

from __future__ import annotations

import ipaddress
from typing import Any

from axes.handlers.database import AxesDatabaseHandler
from axes.helpers import get_client_username
from axes.models import AccessAttempt
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


class SignInHandler(AxesDatabaseHandler):
    """Axes' database handler, except what a sign-in clears: the failures of the username
    that signed in, from the address it signed in from, and no one else's.

    Axes clears every failure its lockout parameters match, and ours are "username" or
    "ip_address" (either one locks): a sign-in cleared every failure from its address,
    whatever username they were for. An attacker who signed in to an account of their own
    after every four wrong passwords for someone else's was never locked out. A sign-in
    proves only that whoever is at this address knows this account's password; failures
    for it from other addresses still count until they cool off."""

    def reset_user_attempts(self, request: Any, credentials: dict[str, Any] | None = None) -> int:
        username = get_client_username(request, credentials)
        count, _ = AccessAttempt.objects.filter(
            username=username, ip_address=request.axes_ip_address
        ).delete()
        return count


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
