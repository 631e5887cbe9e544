"""A session's version at a glance, for a caller asking again whether it changed: who
is asking and the version, read together in one hand-written statement.

Watching by asking again (the API's `If-None-Match`, a page polling where it cannot
stream) is nearly always answered "nothing changed". The long way to that answer reads
the caller (the token and its account, or the link), then the session in its reach, each
an ORM query built and compiled per request: for an empty answer, that building cost more
than the reading. No library answers "unchanged" from the caller's reach, so the
statements are written here, beside the rules they repeat (`tracker.access`):

- a token (`by_token`): known, its account active, used within `TOUCH_EVERY` (so not
  expired, and no new `last_used_at` due), the session in one of its account's circles;
- a share link (`by_link`): well formed, known, not revoked, of this session.

A glance says only what a caller the long way lets in would be told; it finds nothing
(None) in every other case, and the caller goes the long way, which answers as it always
did (a token to touch, an expired one, a stranger, a revoked link: 200, 401 or 404 with
the sentence and the code). `tests/*/test_glance_same_answer.py` ask each question both
ways (the glance turned off for the long one) and hold them to one answer, headers and
all; `tests/api/test_watching.py` and `tests/views/test_live.py` the verdicts.
"""

from __future__ import annotations

import functools
import secrets
from collections.abc import Callable, Sequence
from datetime import UTC, datetime
from typing import Any, NamedTuple

from django.db import connection
from django.utils import timezone

from tracker.access import TOKEN, Role
from tracker.models import ApiToken, Circle, Deal, Session, ShareLink, token_live_since
from tracker.models.accounts import TOUCH_EVERY, digest
from tracker.rows import loaders, selected

LARGEST_ID = 2**63 - 1  # an id past a bigint's range is no row's: the long way says 404


class Glance(NamedTuple):
    """The session's version, who asked (for the request log) and as what."""

    session_id: int
    version: int
    started_at: datetime  # with the id and version, the key of its kept answers
    role: Role
    user_id: int | None = None
    link_id: int | None = None
    # The token's row and its account's, as read (`by_token`): the caller, should the
    # request go the long way after all (nothing kept yet), without reading them again.
    token_row: tuple[Any, ...] | None = None


def token_of(found: Glance) -> ApiToken:
    """The token a token's glance found, with its account, as `api_token_check` returns
    it for a token that needs no touch (the only one a glance finds)."""
    assert found.token_row is not None
    load_token, load_user = _token_loaders()
    token = load_token(found.token_row)
    token.user = load_user(found.token_row)
    return token


def _aware(moment: datetime) -> datetime:
    """A time as the ORM hands it: SQLite's come back naive, and the project's are UTC."""
    return timezone.make_aware(moment, UTC) if timezone.is_naive(moment) else moment


def _table(model: type) -> str:
    return connection.ops.quote_name(model._meta.db_table)  # type: ignore[attr-defined]


def _one_row(sql: str, params: list[object]) -> tuple[Any, ...] | None:
    with connection.cursor() as cursor:
        cursor.execute(sql, params)
        return cursor.fetchone()  # type: ignore[no-any-return]


def _session(pk: int | None, deal: bool) -> tuple[str, list[int]]:
    """The condition on `s.id` for the session asked about: by its id, by a deal of it,
    or (None) any: the link's own."""
    if pk is None:
        return "", []
    if deal:
        return f" AND s.id = (SELECT d.session_id FROM {_table(Deal)} d WHERE d.id = %s)", [pk]
    return " AND s.id = %s", [pk]


def by_token(key: str, pk: int, *, deal: bool = False) -> Glance | None:
    """The session `pk` (or deal `pk`'s), for an API token whose account reaches it."""
    if not 0 < pk <= LARGEST_ID:
        return None
    condition, params = _session(pk, deal)
    account = ApiToken.user.field.related_model
    row = _one_row(
        "SELECT s.id, s.version, s.started_at, "
        + ", ".join([*selected(ApiToken, "t"), *selected(account, "u")])
        + f" FROM {_table(ApiToken)} t"
        f" JOIN {_table(account)} u ON u.id = t.user_id"
        f" JOIN {_table(Circle.members.through)} m ON m.user_id = u.id"
        f" JOIN {_table(Session)} s ON s.circle_id = m.circle_id{condition}"
        " WHERE t.digest = %s AND u.is_active",
        [*params, digest(key)],
    )
    if row is None:
        return None
    session_id, version, started_at = row[:3]
    token_row = row[3:]
    # A token due a new `last_used_at`, or expired, goes the long way that writes or
    # refuses it.
    last_used_at = _aware(token_row[_TOKEN_COLUMN["last_used_at"]])
    if last_used_at < max(timezone.now() - TOUCH_EVERY, token_live_since()):
        return None
    user_id = token_row[_TOKEN_COLUMN["user_id"]]
    return Glance(
        session_id, version, _aware(started_at), Role.MEMBER, user_id=user_id, token_row=token_row
    )


# Where each of the token's columns is in its row (`selected`: the fields' order).
_TOKEN_COLUMN = {field.attname: at for at, field in enumerate(ApiToken._meta.concrete_fields)}


@functools.cache
def _token_loaders() -> list[Callable[[Sequence[Any]], Any]]:
    return loaders(ApiToken, ApiToken.user.field.related_model)


def by_link(token: str, pk: int | None = None, *, deal: bool = False) -> Glance | None:
    """The session of a live share link: the link's own, or only if it is `pk` (or deal
    `pk`'s)."""
    if not TOKEN.fullmatch(token) or (pk is not None and not 0 < pk <= LARGEST_ID):
        return None
    condition, params = _session(pk, deal)
    row = _one_row(
        "SELECT s.id, s.version, s.started_at, l.role, l.id, l.token"
        f" FROM {_table(ShareLink)} l"
        f" JOIN {_table(Session)} s ON s.id = l.session_id{condition}"
        " WHERE l.token = %s AND l.revoked_at IS NULL",
        [*params, token],
    )
    # Found by the token, then compared again in constant time, as `access.link_by_token`.
    if row is None or not secrets.compare_digest(row[5].encode(), token.encode()):
        return None
    session_id, version, started_at, role, link_id, _ = row
    return Glance(session_id, version, _aware(started_at), Role(role), link_id=link_id)
