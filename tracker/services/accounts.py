"""Accounts: the API token a username and password are traded for."""

from __future__ import annotations

from django.contrib.auth.models import AbstractBaseUser
from rest_framework.authtoken.models import Token


def api_token_get(*, user: AbstractBaseUser) -> str:
    """The account's API token, made on first use (the same token every time)."""
    token, _created = Token.objects.get_or_create(user=user)
    return str(token.key)
