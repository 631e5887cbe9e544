"""The short way for a client asking again whether a session changed: `If-None-Match`
with an API token or a share link, answered 304 from one statement.

Watching through the API is polling: a client asks again every second or two, and nearly
every answer is "nothing changed". The long way (DRF: the token, its account, the session
in reach, each one ORM query built and compiled) cost twice `/healthz` for an empty
answer. Here one hand-written statement reads the caller and the session's version
together, with no ORM to compile: no library answers a conditional request from the
caller's reach, and the ORM's version of this statement costs more to build than to run.

The short way only ever says 304, and only when every rule of the long way would have
let the same caller read the same answer:

- a token: known, its account active, used within `TOUCH_EVERY` (so it has not expired
  and needs no new `last_used_at`), the session in one of its account's circles;
- a share link: well formed, known, not revoked, of this very session.

In every other case (no tag, another credential, a session login, a token to touch, a
tag of another version, a session out of reach) it says nothing and the request goes the
long way, which answers exactly as before: 200, 401 or 404 with the sentence and code.
The tag is the long way's (`ApiView.fresh`): session, version, role, language.
`tests/api/test_watching.py` holds the two ways to one verdict for every kind of caller.
"""

from __future__ import annotations

import secrets
from datetime import UTC
from typing import NamedTuple

from django.db import connection
from django.http import HttpRequest, HttpResponse, HttpResponseNotModified
from django.utils import timezone
from django.utils.cache import patch_cache_control
from django.utils.http import parse_etags, quote_etag
from django.utils.translation import get_language
from rest_framework.authentication import get_authorization_header

from tracker.access import TOKEN, Role
from tracker.models import ApiToken, Circle, Deal, Session, ShareLink
from tracker.models.accounts import token_live_since
from tracker.services.accounts import TOUCH_EVERY, digest

LARGEST_ID = 2**63 - 1  # an id past a bigint's range is no row's: the long way says 404


class _Seen(NamedTuple):
    """What the statement found: the session's tag parts, and who asked (for the log)."""

    session_id: int
    version: int
    role: str
    user_id: int | None = None
    link_id: int | None = None


def _table(model: type) -> str:
    return connection.ops.quote_name(model._meta.db_table)  # type: ignore[attr-defined]


def _target(deal: bool) -> str:
    """The session asked about: its id, or the session of the deal asked about."""
    if not deal:
        return "%s"
    return f"(SELECT d.session_id FROM {_table(Deal)} d WHERE d.id = %s)"


def _by_token(key: str, pk: int, deal: bool) -> _Seen | None:
    """The session, for a token whose account reaches it."""
    members = _table(Circle.members.through)
    with connection.cursor() as cursor:
        cursor.execute(
            f"SELECT s.id, s.version, t.last_used_at, u.id FROM {_table(ApiToken)} t"
            f" JOIN {_table(ApiToken.user.field.related_model)} u ON u.id = t.user_id"
            f" JOIN {_table(Session)} s ON s.id = {_target(deal)}"
            f" JOIN {members} m ON m.circle_id = s.circle_id AND m.user_id = u.id"
            " WHERE t.digest = %s AND u.is_active",
            [pk, digest(key)],
        )
        row = cursor.fetchone()
    if row is None:
        return None
    session_id, version, last_used_at, user_id = row
    # A token due a new `last_used_at`, or expired, goes the long way that writes or
    # refuses it. (SQLite hands back a naive time; the project's times are UTC.)
    if timezone.is_naive(last_used_at):
        last_used_at = timezone.make_aware(last_used_at, UTC)
    if last_used_at < max(timezone.now() - TOUCH_EVERY, token_live_since()):
        return None
    return _Seen(session_id, version, Role.MEMBER.value, user_id=user_id)


def _by_link(token: str, pk: int, deal: bool) -> _Seen | None:
    """The session, for a live share link of it."""
    if not TOKEN.fullmatch(token):
        return None
    with connection.cursor() as cursor:
        cursor.execute(
            f"SELECT s.id, s.version, l.role, l.token, l.id FROM {_table(ShareLink)} l"
            f" JOIN {_table(Session)} s ON s.id = l.session_id AND s.id = {_target(deal)}"
            " WHERE l.token = %s AND l.revoked_at IS NULL",
            [pk, token],
        )
        row = cursor.fetchone()
    if row is None or not secrets.compare_digest(row[3].encode(), token.encode()):
        return None
    return _Seen(row[0], row[1], row[2], link_id=row[4])


def not_modified(
    request: HttpRequest, pk: int, *, deal: bool, headers: dict[str, str]
) -> HttpResponse | None:
    """304 for a caller whose tag is the session's own now, or None: go the long way.
    `pk` is the session's id, or the deal's with `deal`; `headers` the view's own (Allow,
    Vary), so both ways answer alike."""
    sent = parse_etags(request.headers.get("If-None-Match", ""))
    words = get_authorization_header(request).split()
    if not sent or len(words) != 2 or not 0 < pk <= LARGEST_ID:
        return None
    try:
        scheme, credential = words[0].decode("ascii").lower(), words[1].decode("ascii")
    except UnicodeDecodeError:
        return None
    if scheme == "token":
        found = _by_token(credential, pk, deal)
    elif scheme == "share":
        found = _by_link(credential, pk, deal)
    else:
        return None
    if found is None:
        return None
    tag = quote_etag(f"{found.session_id}.{found.version}.{found.role}.{get_language()}")
    if tag not in sent and "*" not in sent:
        return None
    # The request log says who asked, as the long way's would (`tracker.middleware`).
    request.caller_ids = (found.user_id, found.link_id)  # type: ignore[attr-defined]
    response = HttpResponseNotModified()
    for name, value in headers.items():
        response[name] = value
    response["ETag"] = tag
    patch_cache_control(response, private=True, no_cache=True)
    return response
