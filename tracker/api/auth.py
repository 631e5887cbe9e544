"""Sign-in for API clients: a username and password traded for a token; the account's
tokens listed and revoked; signing out (the token used is revoked).

Wrong passwords count towards the sign-in lockout the pages share (django-axes): past it,
429 `locked_out` with `Retry-After`, whatever the password. Answers that show a token are
never cached (`Cache-Control: no-store`).
"""

from __future__ import annotations

from typing import Any

from django.contrib.auth import authenticate, user_logged_in
from django.core.cache import BaseCache, caches
from django.utils.translation import gettext as _
from django.utils.translation import gettext_noop
from drf_spectacular.utils import extend_schema
from rest_framework import serializers, status
from rest_framework.exceptions import ValidationError
from rest_framework.permissions import AllowAny
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.settings import api_settings
from rest_framework.throttling import SimpleRateThrottle
from rest_framework.views import APIView

from tracker import selectors, services
from tracker.access import Role
from tracker.api.base import PARSERS, ApiView, gated, no_store
from tracker.api.exceptions import api_exception_handler
from tracker.api.fields import ClosedInput, StringField
from tracker.api.schema import ERROR, RETRY_AFTER, THROTTLED, TOO_LARGE, reads, writes
from tracker.errors import Invalid, LockedOut
from tracker.models import ApiToken


class TokenInput(ClosedInput):
    username = StringField()
    password = StringField(trim_whitespace=False, style={"input_type": "password"})
    name = StringField(
        required=False,
        default="",
        allow_blank=True,
        max_length=80,
        help_text='What the token is for ("phone", "laptop"), shown in your token list.',
    )


class TokenOut(serializers.Serializer):
    token = serializers.CharField(help_text='Send as "Authorization: Token <token>".')
    id = serializers.IntegerField(help_text="The token's id, to revoke it.")


class ApiTokenOut(serializers.Serializer):
    """One of an account's tokens: never its key, which is shown only when issued."""

    id = serializers.IntegerField(source="token.id")
    prefix = serializers.CharField(source="token.prefix", help_text="The key's first characters.")
    name = serializers.CharField(source="token.name")
    created_at = serializers.DateTimeField(source="token.created_at")
    last_used_at = serializers.DateTimeField(source="token.last_used_at")
    current = serializers.BooleanField(help_text="The token this request was sent with.")


class AuthThrottle(SimpleRateThrottle):
    """Password guesses: token requests per client IP, counted in the "throttle" cache
    (the database) so every worker and server counts the same requests."""

    scope = "auth"

    @property
    def cache(self) -> BaseCache:  # type: ignore[override]
        return caches["throttle"]

    def get_rate(self) -> str | None:
        rate: str | None = api_settings.DEFAULT_THROTTLE_RATES.get(self.scope)
        return rate

    def get_cache_key(self, request: Request, view: Any) -> str:
        return self.cache_format % {"scope": self.scope, "ident": f"ip:{self.get_ident(request)}"}


def _locked_out(request: Request) -> bool:
    """Whether django-axes refused this sign-in as locked out (it marks the request it
    was given: DRF's, or Django's under it)."""
    return bool(
        getattr(request, "axes_locked_out", False)
        or getattr(request._request, "axes_locked_out", False)
    )


class AuthTokenView(APIView):
    """Trade a username and password for a new API token."""

    authentication_classes: list[Any] = []
    permission_classes = [AllowAny]
    throttle_classes = [AuthThrottle]
    parser_classes = PARSERS

    def get_exception_handler(self) -> Any:
        return api_exception_handler

    @extend_schema(
        request=TokenInput,
        responses={200: TokenOut, 400: ERROR, 413: TOO_LARGE, 429: THROTTLED},
        parameters=[RETRY_AFTER],
        auth=[],
        summary="Get an API token",
    )
    def post(self, request: Request) -> Response:
        if not isinstance(request.data, dict):
            raise ValidationError(_("The request body must be a JSON object."))
        credentials = TokenInput(data=request.data)
        credentials.is_valid(raise_exception=True)
        data = credentials.validated_data
        user = authenticate(request, username=data["username"], password=data["password"])
        if user is None:
            if _locked_out(request):
                raise LockedOut()
            raise Invalid(
                gettext_noop("That username and password do not match an account."),
                code="bad_credentials",
            )
        # Signed in: as the login page does, say so (last login; the lockout's count of
        # wrong passwords for this username and address starts again).
        user_logged_in.send(sender=type(user), request=request, user=user)
        issued = services.api_token_create(user=user, name=data["name"])
        return no_store(Response({"token": issued.key, "id": issued.token.pk}))


class TokenListView(ApiView):
    """The signed-in account's live tokens (an account only: no share link)."""

    need = {"GET": Role.MEMBER}

    @reads(ApiTokenOut(many=True), summary="Your API tokens, the one used last first")
    def get(self, request: Request) -> Response:
        current = request.auth.pk if isinstance(request.auth, ApiToken) else None
        tokens = [
            {"token": token, "current": token.pk == current}
            for token in selectors.api_tokens(self.actor.user)  # type: ignore[arg-type]
        ]
        return no_store(Response(ApiTokenOut(tokens, many=True).data))


class TokenRevokeView(ApiView):
    need = {"POST": Role.MEMBER}

    @writes(None, 204, None, summary="Revoke one of your API tokens")
    @gated
    def post(self, request: Request, pk: int) -> Response:
        services.api_token_revoke(user=self.actor.user, token_id=pk)  # type: ignore[arg-type]
        return Response(status=status.HTTP_204_NO_CONTENT)


class SignOutView(ApiView):
    need = {"POST": Role.MEMBER}

    @writes(None, 204, None, summary="Sign out: revoke the token this request was sent with")
    @gated
    def post(self, request: Request) -> Response:
        if isinstance(request.auth, ApiToken):
            services.api_token_revoke(user=self.actor.user, token_id=request.auth.pk)  # type: ignore[arg-type]
        return Response(status=status.HTTP_204_NO_CONTENT)
