"""Accounts' API tokens."""

from __future__ import annotations

import hashlib
from datetime import datetime, timedelta

from django.conf import settings
from django.db import models
from django.utils import timezone

# `last_used_at` is written at most this often, so a burst of API reads writes once.
TOUCH_EVERY = timedelta(minutes=1)


def digest(key: str) -> str:
    """What is stored of a key. Keys are 160 random bits, so a plain SHA-256 is enough:
    there is nothing to guess that a slow hash would protect."""
    return hashlib.sha256(key.encode()).hexdigest()


def token_idle_limit() -> timedelta:
    """How long a token may go unused before it stops working (API_TOKEN_IDLE_DAYS)."""
    return timedelta(days=settings.API_TOKEN_IDLE_DAYS)


def token_live_since() -> datetime:
    """Tokens last used before this moment have expired."""
    return timezone.now() - token_idle_limit()


class ApiToken(models.Model):
    """A key an API client sends as `Authorization: Token <key>`, one per sign-in.

    Only a SHA-256 digest of the key is stored, so a copy of the database holds no usable
    token; `prefix` (the key's first characters) tells the account's tokens apart in a
    list. A token stops working when it is revoked (the row is deleted: by its account, by
    signing out through the API, by a password change) or when it has not been used for
    `API_TOKEN_IDLE_DAYS` (`last_used_at`, kept to within a minute).
    """

    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="api_tokens"
    )
    digest = models.CharField(max_length=64, unique=True)
    prefix = models.CharField(max_length=8)
    name = models.CharField(max_length=80, blank=True)
    created_at = models.DateTimeField(default=timezone.now)
    last_used_at = models.DateTimeField(default=timezone.now)

    class Meta:
        ordering = ["-last_used_at", "-id"]

    def __str__(self) -> str:
        return f"{self.prefix}… ({self.user_id})"
