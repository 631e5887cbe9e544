"""Share links as API credentials: `Authorization: Share <token>` (SPEC 7).

A link authenticates no account: `request.user` stays anonymous and `request.auth` is the
`ShareLink`. What the link may do is decided in `tracker.api.permissions`.
"""

from __future__ import annotations

import secrets

from django.contrib.auth.models import AnonymousUser
from django.utils.translation import gettext as _
from drf_spectacular.extensions import OpenApiAuthenticationExtension
from rest_framework.authentication import BaseAuthentication, get_authorization_header
from rest_framework.exceptions import AuthenticationFailed
from rest_framework.request import Request

from tracker.models import ShareLink

KEYWORD = b"share"
LONGEST_TOKEN = 64  # ShareLink.token's length; anything longer is no token of ours


class ShareLinkAuthentication(BaseAuthentication):
    """Authenticate a scorer or viewer link by its token.

    The link is found by its token, then the two are compared again in constant time, so
    a near miss takes as long as a far one. A revoked link is refused.
    """

    def authenticate(self, request: Request) -> tuple[AnonymousUser, ShareLink] | None:
        words = get_authorization_header(request).split()
        if not words or words[0].lower() != KEYWORD:
            return None
        if len(words) != 2:
            raise AuthenticationFailed(_("Send a share link as: Authorization: Share <token>."))
        try:
            token = words[1].decode("ascii")
        except UnicodeDecodeError:
            raise AuthenticationFailed(_("This share link is not valid.")) from None
        link = None
        if len(token) <= LONGEST_TOKEN:
            link = ShareLink.objects.select_related("session").filter(token=token).first()
        if link is None or not secrets.compare_digest(link.token.encode(), token.encode()):
            raise AuthenticationFailed(_("This share link is not valid."))
        if link.revoked_at is not None:
            raise AuthenticationFailed(_("This share link was revoked; ask for a new one."))
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
