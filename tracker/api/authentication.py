"""Share links as API credentials: `Authorization: Share <token>` (SPEC 7).

A link authenticates no account: `request.user` stays anonymous and `request.auth` is the
`ShareLink`. The token is looked up as the pages look it up (`access.link_by_token`);
what the link may do is decided in `tracker.access`.
"""

from __future__ import annotations

from django.contrib.auth.models import AnonymousUser
from django.utils.translation import gettext as _
from drf_spectacular.extensions import OpenApiAuthenticationExtension
from rest_framework.authentication import BaseAuthentication, get_authorization_header
from rest_framework.exceptions import AuthenticationFailed
from rest_framework.request import Request

from tracker.access import link_by_token
from tracker.errors import NotFound
from tracker.models import ShareLink

KEYWORD = b"share"


class ShareLinkAuthentication(BaseAuthentication):
    """Authenticate a scorer or viewer link by its token; unknown and revoked links are
    refused (401) with the sentence the pages give."""

    def authenticate(self, request: Request) -> tuple[AnonymousUser, ShareLink] | None:
        words = get_authorization_header(request).split()
        if not words or words[0].lower() != KEYWORD:
            return None
        if len(words) != 2:
            raise AuthenticationFailed(_("Send a share link as: Authorization: Share <token>."))
        try:
            link = link_by_token(words[1].decode("ascii", errors="replace"))
        except NotFound as refusal:
            raise AuthenticationFailed(refusal.message) from None
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
