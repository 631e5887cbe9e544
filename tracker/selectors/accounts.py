"""An account's API tokens, as its owner sees them."""

from __future__ import annotations

from django.contrib.auth.models import User
from django.db.models import QuerySet

from tracker.models import ApiToken, token_live_since


def api_tokens(user: User) -> QuerySet[ApiToken]:
    """The account's live tokens, the one used last first (one query)."""
    return ApiToken.objects.filter(user=user, last_used_at__gte=token_live_since())
