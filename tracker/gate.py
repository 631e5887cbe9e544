"""The one write gate: every write, through the API or a page, passes here (SPEC 8).

1. **Throttle.** Writes are counted per caller (account or share link) at the `writes`
   rate, in one counter for both doors: a phone that taps through the pages and a client
   of the API share the same allowance. Over it: `TooManyWrites` (429) with the seconds to
   wait. The counters live in the "throttle" cache (the database), so every worker and
   server counts the same requests.

2. **Idempotency**, for a write sent with a key (the API's `Idempotency-Key` header, the
   `key` field every page form carries):

   1. The key is claimed in a transaction of its own, committed before any work: a row
      (caller, key) in state `running`, with a fingerprint of the request as the person
      sent it (method, path, body). The unique constraint on (caller, key) lets exactly
      one request claim it; a concurrent duplicate sees the committed row.
   2. The write then runs in one transaction that first locks the key row, and, if the
      answer is a success, stores it on the row before committing: the effect and the
      stored answer commit together or not at all.
   3. A refusal or a crash changes nothing, so the key is let go (the row deleted) and a
      retry runs afresh.

   A request finding the key taken: a different fingerprint is refused (`KeyReused`, 422);
   a stored answer is replayed (`Replay`); a key still running is a conflict (409). A
   `running` key whose request died (its process killed) is taken over once no
   transaction holds its lock (see `_take_over`). Keys are kept at least `KEEP_FOR`;
   `idempotency_keys_purge` removes older ones.

The idempotency part is written here rather than taken from a library: the ones for
Django (django-idempotency-key and the like) cache whole responses per view and do not
commit the key together with the write, which is what makes a crash or a race between
two servers safe.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from dataclasses import dataclass
from datetime import timedelta
from typing import Any, TypeVar

from django.core.cache import BaseCache, caches
from django.db import DatabaseError, IntegrityError, connection, transaction
from django.utils import timezone
from django.utils.translation import gettext_noop
from rest_framework.settings import api_settings
from rest_framework.throttling import SimpleRateThrottle

from tracker.access import Actor
from tracker.errors import Conflict, Invalid, KeyReused, TooManyWrites
from tracker.models import IdempotencyKey

KEEP_FOR = timedelta(hours=24)
STALE_AFTER = timedelta(minutes=5)
STALE_ON_POSTGRESQL = timedelta(seconds=2)
LONGEST_KEY = 255

HEADER = "Idempotency-Key"
KEY_FORM = gettext_noop(
    "The %(header)s header is 1 to %(most)s printable ASCII characters, such as a UUID."
)
KEY_REUSED = gettext_noop(
    "This Idempotency-Key was already used for a different request; "
    "send a new key with a new request."
)
STILL_RUNNING = gettext_noop(
    "The first request with this Idempotency-Key is still running; "
    "retry in a moment to get its answer."
)
TOO_MANY = gettext_noop("Too many changes in a short time; try again in %(wait)s seconds.")

T = TypeVar("T")


@dataclass(frozen=True)
class Answer:
    """What a successful write answered, stored with its key to be replayed."""

    status: int
    body: str = ""


@dataclass(frozen=True)
class Replay:
    """The key was applied before: this is what it answered then."""

    answer: Answer


# --- Throttle ---------------------------------------------------------------------------


class _WriteRate(SimpleRateThrottle):  # type: ignore[misc]  # DRF has no type hints
    """DRF's rate counting, keyed by the caller rather than by a request."""

    scope = "writes"

    def __init__(self, actor: Actor) -> None:
        self.actor = actor
        super().__init__()

    @property
    def cache(self) -> BaseCache:
        return caches["throttle"]

    def get_rate(self) -> str | None:
        # Read per request, so a settings change (tests, a deploy) takes effect at once;
        # None switches the limit off.
        rate: str | None = api_settings.DEFAULT_THROTTLE_RATES.get(self.scope)
        return rate

    def get_cache_key(self, request: Any, view: Any) -> str:
        return f"throttle_{self.scope}_{self.actor.scope}"


def throttle(actor: Actor) -> None:
    """Count one write for the caller; refuse it over the rate."""
    rate = _WriteRate(actor)
    if not rate.allow_request(None, None):
        wait = max(1, round(rate.wait() or 1))
        raise TooManyWrites(TOO_MANY, wait=wait)


class _SignUpRate(_WriteRate):
    """Accounts made per client address, at the `signup` rate."""

    scope = "signup"

    def __init__(self, address: str) -> None:
        self.address = address
        SimpleRateThrottle.__init__(self)

    def get_cache_key(self, request: Any, view: Any) -> str:
        return f"throttle_{self.scope}_ip:{self.address}"


SIGN_UPS = gettext_noop(
    "Too many accounts were made from this address; try again in %(minutes)s minutes."
)


def throttle_sign_up(address: str | None) -> None:
    """Count one account made from `address`; refuse it over the `signup` rate."""
    rate = _SignUpRate(address or "unknown")
    if not rate.allow_request(None, None):
        wait = max(1, round(rate.wait() or 1))
        raise TooManyWrites(SIGN_UPS, wait=wait, minutes=max(1, -(-wait // 60)))


# --- Idempotency ------------------------------------------------------------------------


def fingerprint(method: str, path: str, body: bytes) -> str:
    """A hash of the request as sent: method, path with query, body."""
    digest = hashlib.sha256()
    for part in (method.encode(), path.encode(), body):
        digest.update(len(part).to_bytes(8, "big"))
        digest.update(part)
    return digest.hexdigest()


def check_key(key: str) -> None:
    if not 1 <= len(key) <= LONGEST_KEY or not all(" " <= char <= "~" for char in key):
        # Page forms carry keys of their own making, so only an API client meets this.
        raise Invalid(KEY_FORM, code="idempotency_key_invalid", header=HEADER, most=LONGEST_KEY)


def write_once(
    *,
    actor: Actor,
    key: str | None,
    fingerprint: str,
    work: Callable[[], T],
    answer: Callable[[T], Answer | None],
) -> T | Replay:
    """Run `work` once per key, after counting it against the caller's write rate.

    `answer` turns what `work` returned into the answer to store, or None when it is not a
    success (nothing is kept then: a retry runs afresh). Without a key the write runs as
    it is (still counted). Refusals raised by `work` propagate.
    """
    throttle(actor)
    if key is None:
        return work()
    check_key(key)
    claimed = _claim(actor.scope, key, fingerprint)
    if isinstance(claimed, Replay):
        return claimed
    try:
        with transaction.atomic():
            # Held until commit: tells a duplicate that this request is alive.
            locked = IdempotencyKey.objects.select_for_update().filter(pk=claimed.pk).first()
            if locked is None or locked.started_at != claimed.started_at:
                # Taken over while this request stalled before its lock: the other
                # attempt owns the key now, so this one must not apply it too.
                raise Conflict(STILL_RUNNING, code="idempotency_key_running")
            result = work()
            stored = answer(result)
            if stored is not None:
                _store(claimed, stored)
                return result
    except BaseException:
        _let_go(claimed)
        raise
    _let_go(claimed)
    return result


def _claim(scope: str, key: str, fingerprint: str) -> IdempotencyKey | Replay:
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
            raise KeyReused(KEY_REUSED)
        if taken.state == IdempotencyKey.State.DONE:
            assert taken.status_code is not None
            return Replay(Answer(status=taken.status_code, body=taken.response_body))
        revived = _take_over(taken)
        if revived is not None:
            return revived
        raise Conflict(STILL_RUNNING, code="idempotency_key_running")
    raise Conflict(STILL_RUNNING, code="idempotency_key_running")


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


def _store(claimed: IdempotencyKey, answer: Answer) -> None:
    IdempotencyKey.objects.filter(pk=claimed.pk).update(
        state=IdempotencyKey.State.DONE,
        status_code=answer.status,
        response_body=answer.body,
        finished_at=timezone.now(),
    )


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
