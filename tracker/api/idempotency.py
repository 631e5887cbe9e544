"""`Idempotency-Key` on every write (SPEC 8): a retried request is applied once.

For a write sent with the header, by a known caller:

1. The key is claimed in a transaction of its own, committed before any work: a row
   (caller, key) in state `running`, with a fingerprint of the method, path and body. The
   unique constraint on (caller, key) lets exactly one request claim it; a concurrent
   duplicate sees the committed row.
2. The view then runs in one transaction that first locks the key row, and, if the
   answer is a success, stores the status and body on the row before committing: the
   effect and the stored answer commit together or not at all.
3. A refusal (4xx) or a crash changes nothing, so the key is let go (the row deleted)
   and a retry runs afresh.

A request finding the key taken: a different fingerprint is refused with 422; a stored
answer is replayed (same status, same body, header `Idempotent-Replayed: true`); a key
still running is a 409. A `running` key whose request died (its process killed) is
taken over once no transaction holds its lock (see `_take_over`). Keys are kept at least
`KEEP_FOR`; `idempotency_keys_purge` removes older ones.
"""

from __future__ import annotations

import functools
import hashlib
import json
from collections.abc import Callable
from datetime import timedelta
from typing import Any

from django.db import DatabaseError, IntegrityError, connection, transaction
from django.http.request import RawPostDataException
from django.utils import timezone
from django.utils.translation import gettext as _
from rest_framework.exceptions import ValidationError
from rest_framework.renderers import JSONRenderer
from rest_framework.request import Request
from rest_framework.response import Response

from tracker.api.exceptions import KeyReused, StillRunning
from tracker.api.permissions import Caller
from tracker.models import IdempotencyKey

HEADER = "Idempotency-Key"
REPLAYED_HEADER = "Idempotent-Replayed"
KEEP_FOR = timedelta(hours=24)
STALE_AFTER = timedelta(minutes=5)
STALE_ON_POSTGRESQL = timedelta(seconds=2)
LONGEST_KEY = 255

Handler = Callable[..., Response]


def idempotent(handler: Handler) -> Handler:
    """Wrap a view's write method (post, put, patch, delete) as described above."""

    @functools.wraps(handler)
    def write(view: Any, request: Request, *args: Any, **kwargs: Any) -> Response:
        key = request.headers.get(HEADER)
        caller = Caller.of(request)
        if key is None or caller is None:
            return handler(view, request, *args, **kwargs)
        _check(key)
        claimed = _claim(caller.scope, key, _fingerprint(request))
        if isinstance(claimed, Response):
            return claimed
        try:
            with transaction.atomic():
                # Held until commit: tells a duplicate that this request is alive.
                locked = IdempotencyKey.objects.select_for_update().filter(pk=claimed.pk).first()
                if locked is None or locked.started_at != claimed.started_at:
                    # Taken over while this request stalled before its lock: the other
                    # attempt owns the key now, so this one must not apply it too.
                    raise StillRunning()
                response = handler(view, request, *args, **kwargs)
                if 200 <= response.status_code < 300:
                    _store(claimed, response)
                    return response
        except BaseException:
            _let_go(claimed)
            raise
        _let_go(claimed)
        return response

    write.idempotent = True  # type: ignore[attr-defined]
    return write


def _check(key: str) -> None:
    if not 1 <= len(key) <= LONGEST_KEY or not all(" " <= char <= "~" for char in key):
        raise ValidationError(
            _("The %(header)s header is 1 to %(most)s printable ASCII characters, such as a UUID.")
            % {"header": HEADER, "most": LONGEST_KEY}
        )


def _fingerprint(request: Request) -> str:
    try:
        body = request.body
    except RawPostDataException:  # a multipart body already parsed: hash what it holds
        body = json.dumps(request.data, sort_keys=True, default=str).encode()
    digest = hashlib.sha256()
    for part in (request.method.encode(), request.get_full_path().encode(), body):
        digest.update(len(part).to_bytes(8, "big"))
        digest.update(part)
    return digest.hexdigest()


def _claim(scope: str, key: str, fingerprint: str) -> IdempotencyKey | Response:
    """The key row, claimed for this request; or the stored answer to replay."""
    for _attempt in range(3):
        try:
            with transaction.atomic():
                return IdempotencyKey.objects.create(scope=scope, key=key, fingerprint=fingerprint)
        except IntegrityError:
            pass
        taken = IdempotencyKey.objects.filter(scope=scope, key=key).first()
        if taken is None:
            continue  # its request failed and let go in between: claim it again
        if taken.fingerprint != fingerprint:
            raise KeyReused()
        if taken.state == IdempotencyKey.State.DONE:
            return _replay(taken)
        revived = _take_over(taken)
        if revived is not None:
            return revived
        raise StillRunning()
    raise StillRunning()


def _take_over(taken: IdempotencyKey) -> IdempotencyKey | None:
    """A `running` key left by a request that died: claim it, if it is stale and no
    transaction holds its lock.

    On PostgreSQL a live request holds the row lock from a moment after its claim, so a
    key is stale after `STALE_ON_POSTGRESQL` without a lock: a client retrying after a
    server crash is served at once. SQLite has no row locks, so age alone decides there.
    Should a stalled request get its lock after all, it sees the changed `started_at` and
    stands down with 409, so a key is never applied twice.
    """
    grace = STALE_ON_POSTGRESQL if connection.vendor == "postgresql" else STALE_AFTER
    stale = timezone.now() - grace
    if taken.started_at >= stale:
        return None
    try:
        with transaction.atomic():
            row = (
                IdempotencyKey.objects.select_for_update(nowait=True)
                .filter(pk=taken.pk, state=IdempotencyKey.State.RUNNING, started_at__lt=stale)
                .first()
            )
            if row is None:
                return None
            row.started_at = timezone.now()
            row.save(update_fields=["started_at"])
            return row
    except DatabaseError:  # locked: its request is alive after all
        return None


def _store(claimed: IdempotencyKey, response: Response) -> None:
    body = JSONRenderer().render(response.data).decode()
    IdempotencyKey.objects.filter(pk=claimed.pk).update(
        state=IdempotencyKey.State.DONE,
        status_code=response.status_code,
        response_body=body,
        finished_at=timezone.now(),
    )


def _replay(done: IdempotencyKey) -> Response:
    data = json.loads(done.response_body) if done.response_body else None
    assert done.status_code is not None
    return Response(data, status=done.status_code, headers={REPLAYED_HEADER: "true"})


def _let_go(claimed: IdempotencyKey) -> None:
    IdempotencyKey.objects.filter(
        pk=claimed.pk, state=IdempotencyKey.State.RUNNING, started_at=claimed.started_at
    ).delete()


def idempotency_keys_purge(*, older_than: timedelta = KEEP_FOR) -> int:
    """Delete keys older than `older_than` (never less than `KEEP_FOR`); returns how many.

    Run it from a scheduled job; keys are only ever removed here (or let go on failure).
    """
    cutoff = timezone.now() - max(older_than, KEEP_FOR)
    deleted, _by_model = IdempotencyKey.objects.filter(created_at__lt=cutoff).delete()
    return deleted
