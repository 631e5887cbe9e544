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
    # What the standings' rows are made of, moved on (`tracker.answers.ROWS`): the key of
    # an answer that shows only them.
    standings_version: int
    role: Role
    user_id: int | None = None
    link_id: int | None = None
    # The token's row, its account's, the session's and its circle's, as read
    # (`by_token`): the caller and the session, should the request go the long way after
    # all (nothing kept yet), without reading them again.
    token_row: tuple[Any, ...] | None = None
    deal_id: int | None = None  # a token's glance at a deal: its row is in `token_row` too
    # A link's glance: the link's row, its session's and the circle's (`by_link`).
    link_row: tuple[Any, ...] | None = None


def token_of(found: Glance) -> ApiToken:
    """The token a token's glance found, with its account, as `api_token_check` returns
    it for a token that needs no touch (the only one a glance finds)."""
    assert found.token_row is not None
    load_token, load_user, *_ = _token_loaders()
    token = load_token(found.token_row)
    token.user = load_user(found.token_row)
    return token


def session_of(found: Glance) -> Session:
    """The session a token's glance found, with its circle, as `access.access_session`
    reads it for the token's account (the glance found it in one of its circles)."""
    assert found.token_row is not None
    _, _, load_session, load_circle, _ = _token_loaders()
    session = load_session(found.token_row)
    session.circle = load_circle(found.token_row)
    return session


def deal_of(found: Glance) -> Deal:
    """The deal a token's glance at a deal found, with its session, as
    `access.access_deal` reads it for the token's account."""
    assert found.token_row is not None and found.deal_id is not None
    deal = _token_loaders()[-1](found.token_row)
    deal.session = session_of(found)
    return deal


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
    row = _one_row(_token_sql(connection.vendor, deal), [pk, digest(key)])
    if row is None:
        return None
    session_id, version, started_at, standings_version = row[:4]
    token_row = row[4:]
    # A token due a new `last_used_at`, or expired, goes the long way that writes or
    # refuses it.
    last_used_at = _aware(token_row[_TOKEN_COLUMN["last_used_at"]])
    if last_used_at < max(timezone.now() - TOUCH_EVERY, token_live_since()):
        return None
    user_id = token_row[_TOKEN_COLUMN["user_id"]]
    return Glance(
        session_id,
        version,
        _aware(started_at),
        standings_version,
        Role.MEMBER,
        user_id=user_id,
        token_row=token_row,
        deal_id=pk if deal else None,
    )


@functools.cache
def _token_sql(vendor: str, deal: bool) -> str:
    """`by_token`'s statement, built once a process: the token, its account, the session
    (or the deal's, and the deal) and its circle, in `_token_loaders`' order."""
    account = ApiToken.user.field.related_model
    columns = [
        *selected(ApiToken, "t"),
        *selected(account, "u"),
        *selected(Session, "s"),
        *selected(Circle, "c"),
        *(selected(Deal, "d") if deal else []),
    ]
    sql = (
        f"SELECT s.id, s.version, s.started_at, s.standings_version, {', '.join(columns)}"
        f" FROM {_table(ApiToken)} t"
        f" JOIN {_table(account)} u ON u.id = t.user_id"
        f" JOIN {_table(Circle.members.through)} m ON m.user_id = u.id"
        f" JOIN {_table(Session)} s ON s.circle_id = m.circle_id"
    )
    if deal:
        sql += f" JOIN {_table(Deal)} d ON d.session_id = s.id AND d.id = %s"
    else:
        sql += " AND s.id = %s"
    return (
        sql + f" JOIN {_table(Circle)} c ON c.id = s.circle_id WHERE t.digest = %s AND u.is_active"
    )


# Where each of the token's columns is in its row (`selected`: the fields' order).
_TOKEN_COLUMN = {field.attname: at for at, field in enumerate(ApiToken._meta.concrete_fields)}


@functools.cache
def _token_loaders() -> list[Callable[[Sequence[Any]], Any]]:
    return loaders(ApiToken, ApiToken.user.field.related_model, Session, Circle, Deal)


def by_link(token: str, pk: int | None = None, *, deal: bool = False) -> Glance | None:
    """The session of a live share link: the link's own, or only if it is `pk` (or deal
    `pk`'s)."""
    if not TOKEN.fullmatch(token) or (pk is not None and not 0 < pk <= LARGEST_ID):
        return None
    condition, params = _session(pk, deal)
    row = _one_row(_link_sql(connection.vendor, condition), [*params, token])
    if row is None:
        return None
    session_id, version, started_at, standings_version = row[:4]
    link_row = row[4:]
    # Found by the token, then compared again in constant time, as `access.link_by_token`.
    if not secrets.compare_digest(link_row[_LINK_COLUMN["token"]].encode(), token.encode()):
        return None
    return Glance(
        session_id,
        version,
        _aware(started_at),
        standings_version,
        Role(link_row[_LINK_COLUMN["role"]]),
        link_id=link_row[_LINK_COLUMN["id"]],
        link_row=link_row,
    )


@functools.cache
def _link_sql(vendor: str, condition: str) -> str:
    """`by_link`'s statement, built once a process for each kind of `condition`: the
    link, its session and the session's circle, in `_link_loaders`' order."""
    columns = [*selected(ShareLink, "l"), *selected(Session, "s"), *selected(Circle, "c")]
    return (
        f"SELECT s.id, s.version, s.started_at, s.standings_version, {', '.join(columns)}"
        f" FROM {_table(ShareLink)} l"
        f" JOIN {_table(Session)} s ON s.id = l.session_id{condition}"
        f" JOIN {_table(Circle)} c ON c.id = s.circle_id"
        " WHERE l.token = %s AND l.revoked_at IS NULL"
    )


_LINK_COLUMN = {field.attname: at for at, field in enumerate(ShareLink._meta.concrete_fields)}


@functools.cache
def _link_loaders() -> list[Callable[[Sequence[Any]], Any]]:
    return loaders(ShareLink, Session, Circle)


def link_of(found: Glance) -> ShareLink:
    """The link a link's glance found, with its session and circle, as
    `access.link_by_token` returns it (the glance found it live and compared its token)."""
    assert found.link_row is not None
    load_link, load_session, load_circle = _link_loaders()
    link = load_link(found.link_row)
    link.session = load_session(found.link_row)
    link.session.circle = load_circle(found.link_row)
    return link
