"""API credentials: an account's token (`Authorization: Token <key>`), or a share link
(`Authorization: Share <token>`, SPEC 7).

A token is checked by `services.api_token_check` (its digest, the idle limit). A link
authenticates no account: `request.user` stays anonymous and `request.auth` is the
`ShareLink`, looked up as the pages look it up (`access.link_by_token`). What either may
do is decided in `tracker.access`.
"""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.contrib.auth.models import AnonymousUser
from django.utils.translation import gettext as _
from drf_spectacular.extensions import OpenApiAuthenticationExtension
from rest_framework.authentication import (
    BaseAuthentication,
    TokenAuthentication,
    get_authorization_header,
)
from rest_framework.exceptions import AuthenticationFailed
from rest_framework.request import Request

from tracker.access import link_by_token
from tracker.errors import NotFound
from tracker.glance import link_of, token_of
from tracker.models import ApiToken, ShareLink
from tracker.services.accounts import TokenExpired, api_token_check

KEYWORD = b"share"


class ApiTokenAuthentication(TokenAuthentication):
    """DRF's `Authorization: Token <key>` scheme, against `ApiToken`: a revoked, unknown
    or idle-expired token is refused (401). `request.auth` is the `ApiToken`."""

    def authenticate(self, request: Request) -> tuple[Any, ApiToken] | None:
        # A watched read whose glance found this token (this request's own header) live,
        # needing no touch, its account active and in the session's circle: the caller as
        # the glance read it, not read again (`ApiView.dispatch`).
        found = getattr(request._request, "glanced", None)
        if found is not None and found.token_row is not None:
            token = token_of(found)
            return token.user, token
        return super().authenticate(request)  # type: ignore[no-any-return]

    def authenticate_credentials(self, key: str) -> tuple[Any, ApiToken]:
        try:
            token = api_token_check(key)
        except TokenExpired:
            raise AuthenticationFailed(
                _(
                    "This token was not used for %(days)s days and has expired; "
                    "sign in again for a new one."
                )
                % {"days": settings.API_TOKEN_IDLE_DAYS},
                code="token_expired",
            ) from None
        if token is None or not token.user.is_active:
            raise AuthenticationFailed(
                _("This token is not valid: it was revoked, or never was one; sign in again."),
                code="token_not_valid",
            )
        return token.user, token


class ShareLinkAuthentication(BaseAuthentication):
    """Authenticate a scorer or viewer link by its token; unknown and revoked links are
    refused (401) with the sentence the pages give."""

    def authenticate(self, request: Request) -> tuple[AnonymousUser, ShareLink] | None:
        words = get_authorization_header(request).split()
        if not words or words[0].lower() != KEYWORD:
            return None
        if len(words) != 2:
            raise AuthenticationFailed(_("Send a share link as: Authorization: Share <token>."))
        # A watched read whose glance found this link live (`ApiView.dispatch`): the link
        # with its session and circle as the glance read them, not read again.
        found = getattr(request._request, "glanced", None)
        if found is not None and found.link_row is not None:
            return AnonymousUser(), link_of(found)
        try:
            link = link_by_token(words[1].decode("ascii", errors="replace"))
        except NotFound as refusal:
            raise AuthenticationFailed(refusal.message, code=refusal.code) from None
        return AnonymousUser(), link

    def authenticate_header(self, request: Request) -> str:
        return "Share"


class ShareLinkScheme(OpenApiAuthenticationExtension):
    """Documents the share link header in the OpenAPI schema."""

    target_class = "tracker.api.authentication.ShareLinkAuthentication"
    name = "shareLink"

    def get_security_definition(self, auto_schema: object) -> dict[str, str]:
        return {
            "type": "apiKey",
            "in": "header",
            "name": "Authorization",
            "description": (
                'A session\'s share link token, sent as "Share <token>". A scorer link may '
                "tap, undo, record events and end the match of its session; a viewer link "
                "may only read it."
            ),
        }
