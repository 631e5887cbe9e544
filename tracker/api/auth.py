"""Sign-in for API clients: a username and password traded for a token."""

from __future__ import annotations

from typing import Any

from django.contrib.auth import authenticate
from django.core.cache import BaseCache, caches
from django.utils.translation import gettext as _
from django.utils.translation import gettext_noop
from drf_spectacular.utils import extend_schema
from rest_framework.exceptions import ValidationError
from rest_framework.permissions import AllowAny
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.settings import api_settings
from rest_framework.throttling import SimpleRateThrottle
from rest_framework.views import APIView

from tracker import services
from tracker.api import serializers as io
from tracker.api.base import PARSERS
from tracker.api.exceptions import api_exception_handler
from tracker.api.schema import ERROR, RETRY_AFTER, THROTTLED
from tracker.errors import Invalid


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


class AuthTokenView(APIView):
    """Trade a username and password for an API token (the same token every time)."""

    authentication_classes: list[Any] = []
    permission_classes = [AllowAny]
    throttle_classes = [AuthThrottle]
    parser_classes = PARSERS

    def get_exception_handler(self) -> Any:
        return api_exception_handler

    @extend_schema(
        request=io.TokenInput,
        responses={200: io.TokenOut, 400: ERROR, 429: THROTTLED},
        parameters=[RETRY_AFTER],
        auth=[],
        summary="Get an API token",
    )
    def post(self, request: Request) -> Response:
        if not isinstance(request.data, dict):
            raise ValidationError(_("The request body must be a JSON object."))
        credentials = io.TokenInput(data=request.data)
        credentials.is_valid(raise_exception=True)
        user = authenticate(request, **credentials.validated_data)
        if user is None:
            raise Invalid(
                gettext_noop("That username and password do not match an account."),
                code="bad_credentials",
            )
        return Response({"token": services.api_token_get(user=user)})
