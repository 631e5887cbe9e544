"""Accounts: API tokens — issued one per sign-in, checked on every API request, revoked
by their account, by signing out, by a password change, or by lying idle.

Only a digest of a key is stored (`models.ApiToken`); the key itself is shown once, in
the answer that issues it.
"""

from __future__ import annotations

import secrets
from dataclasses import dataclass
from typing import Any

from django.contrib.auth.models import User
from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext_noop

from tracker.errors import NotFound
from tracker.models import ApiToken, token_live_since
from tracker.models.accounts import TOUCH_EVERY, digest
from tracker.rows import one_with

NO_TOKEN = gettext_noop("There is no token %(id)s.")
# An account keeps at most this many tokens: a new sign-in past it drops the one used
# longest ago, so repeated sign-ins cannot grow the table without bound.
MOST_TOKENS = 20
PREFIX_LENGTH = 8


@dataclass(frozen=True)
class IssuedToken:
    """A token just made: the row, and the key (shown this once, never stored)."""

    token: ApiToken
    key: str


@transaction.atomic
def api_token_create(*, user: User, name: str = "") -> IssuedToken:
    """A new token for the account (40 hex characters, like DRF's)."""
    now = timezone.now()
    tokens = ApiToken.objects.filter(user=user)
    tokens.filter(last_used_at__lt=token_live_since()).delete()
    stale = list(tokens.order_by("-last_used_at", "-id").values_list("pk", flat=True))
    if len(stale) >= MOST_TOKENS:
        ApiToken.objects.filter(pk__in=stale[MOST_TOKENS - 1 :]).delete()
    key = secrets.token_hex(20)
    token = ApiToken.objects.create(
        user=user,
        digest=digest(key),
        prefix=key[:PREFIX_LENGTH],
        name=name[:80],
        created_at=now,
        last_used_at=now,
    )
    return IssuedToken(token=token, key=key)


class TokenExpired(Exception):
    """The token was not used for longer than the idle limit (it is deleted)."""


def api_token_check(key: str) -> ApiToken | None:
    """The live token with this key, with its account, marked as used; None for no such
    token. Raises TokenExpired for a token idle too long (and deletes it)."""
    # Found by the digest of the key: comparing digests in the index leaks nothing about
    # the key itself.
    # Written by hand (`tracker.rows`): every API request reads it, and the ORM took
    # longer to build the statement than PostgreSQL to run it.
    token = one_with(ApiToken, ("user",), "digest", digest(key))
    if token is None:
        return None
    now = timezone.now()
    if token.last_used_at < token_live_since():
        token.delete()
        raise TokenExpired
    if token.last_used_at < now - TOUCH_EVERY:
        ApiToken.objects.filter(pk=token.pk).update(last_used_at=now)
        token.last_used_at = now
    return token


def api_token_revoke(*, user: User, token_id: int) -> None:
    """Revoke one of the account's tokens (404 for another account's, or none)."""
    deleted, _ = ApiToken.objects.filter(pk=token_id, user=user).delete()
    if not deleted:
        raise NotFound(NO_TOKEN, id=token_id)


def api_tokens_revoke_all(*, user: User) -> int:
    """Revoke every token of the account; how many there were."""
    deleted, _ = ApiToken.objects.filter(user=user).delete()
    return deleted


# --- A password change revokes every token ----------------------------------------------


def note_password_change(sender: Any, instance: User, **kwargs: Any) -> None:
    """pre_save of an account: mark it when its password is about to change, however it
    changes (the password page, a reset, the admin, `manage.py changepassword`), or when
    it is being deactivated: either signs its other devices out
    (`tracker.services.members.account_shut_out`)."""
    fields = kwargs.get("update_fields")
    if instance.pk is None or (fields is not None and not {"password", "is_active"} & set(fields)):
        return
    stored = (
        type(instance).objects.filter(pk=instance.pk).values_list("password", "is_active").first()
    )
    if stored is None:
        return
    password, was_active = stored
    instance._password_changed = password != instance.password  # type: ignore[attr-defined]
    instance._deactivated = was_active and not instance.is_active  # type: ignore[attr-defined]


def revoke_on_password_change(sender: Any, instance: User, **kwargs: Any) -> None:
    """post_save of an account: a changed password revokes every API token, so a token
    taken along with an old password stops working with it."""
    if getattr(instance, "_password_changed", False):
        api_tokens_revoke_all(user=instance)
        instance._password_changed = False  # type: ignore[attr-defined]
