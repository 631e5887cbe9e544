"""The one write gate: every write, through the API or a page, passes here (SPEC 8).

1. **Throttle.** Writes are counted per caller (account or share link) at the `writes`
   rate, in one counter for both doors: a phone that taps through the pages and a client
   of the API share the same allowance. Over it: `TooManyWrites` (429) with the seconds to
   wait. The counter is a row per caller in the database (`WriteCount`), so every worker
   and server counts the same requests; one statement counts a write (see `throttle`).

2. **Idempotency**, for a write sent with a key (the API's `Idempotency-Key` header, the
   `key` field every page form carries). The key is stored with the write's answer in the
   write's own transaction, so the effect and its key commit together or not at all:

   - A key already stored with the same request (method, path, body) is answered by
     replaying its stored answer (`Replay`); with another request it is refused
     (`KeyReused`, 422). The key is looked up only after the write, when storing it
     clashes or the write is refused (or not a success): that attempt is rolled back.
   - A duplicate sent at the same moment as the first waits for it (on the session's
     row lock every deal write takes, or on the key's unique index) and then finds the
     key: its own attempt is rolled back and the first answer replayed.
   - A refusal or a crash stores nothing, so a retry runs afresh.

The idempotency part is written here rather than taken from a library: the ones for
Django (django-idempotency-key and the like) cache whole responses per view and do not
commit the key together with the write, which is what makes a crash or a race between
two servers safe. The counter is written here because Django's cache backends count in
four statements per write against the database (one a COUNT(*) of the whole table), and
a shared cache other than the database would be one more server to run.
"""

from __future__ import annotations

import functools
import hashlib
import math
import time
from collections.abc import Callable
from contextvars import ContextVar
from dataclasses import dataclass
from datetime import timedelta
from typing import Any, TypeVar

from django.db import connection, transaction
from django.utils import timezone
from django.utils.translation import gettext_noop
from rest_framework.settings import api_settings
from rest_framework.throttling import SimpleRateThrottle

from tracker.access import Actor
from tracker.errors import Invalid, KeyReused, TooManyWrites
from tracker.models import IdempotencyKey, WriteCount
from tracker.row_writes import insert

KEEP_FOR = timedelta(hours=24)
LONGEST_KEY = 255

HEADER = "Idempotency-Key"
KEY_FORM = gettext_noop(
    "The %(header)s header is 1 to %(most)s printable ASCII characters, such as a UUID."
)
KEY_REUSED = gettext_noop(
    "This Idempotency-Key was already used for a different request; "
    "send a new key with a new request."
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

_COUNT = """
INSERT INTO {table} (scope, period_start, count) VALUES (%s, %s, 1)
ON CONFLICT (scope) DO UPDATE SET
    count = CASE WHEN {table}.period_start = excluded.period_start
                 THEN {table}.count + 1 ELSE 1 END,
    period_start = excluded.period_start
RETURNING count
"""


def counted_write(scope: str, *, period: int, now: float | None = None) -> tuple[int, int]:
    """Count one write for `scope` (a caller's writes, an address's sign-ups) in the
    current fixed window of `period` seconds: the writes counted in it so far (this one
    included) and the seconds until it ends. One
    statement, on PostgreSQL and SQLite alike, committed at once (it stands even if the
    write is refused)."""
    now = time.time() if now is None else now
    period_start = int(now // period)
    table = connection.ops.quote_name(WriteCount._meta.db_table)
    with connection.cursor() as cursor:
        cursor.execute(_COUNT.format(table=table), [scope, period_start])
        (count,) = cursor.fetchone()
    return count, max(1, math.ceil((period_start + 1) * period - now))


def throttle(actor: Actor) -> None:
    """Count one write for the caller; refuse it over the `writes` rate.

    The window is fixed (a minute for `120/min`), not sliding: at a window's edge a
    caller may briefly make up to twice the rate, which the limit tolerates."""
    # Read per request, so a settings change (tests, a deploy) takes effect at once;
    # None switches the limit off.
    rate: str | None = api_settings.DEFAULT_THROTTLE_RATES.get("writes")
    if rate is None:
        return
    most, period = SimpleRateThrottle.parse_rate(None, rate)  # DRF's reading of "120/min"
    count, wait = counted_write(f"writes:{actor.scope}", period=period)
    if count > most:
        raise TooManyWrites(TOO_MANY, wait=wait)


SIGN_UPS = gettext_noop(
    "Too many accounts were made from this address; try again in %(minutes)s minutes."
)


SIGN_UP_TRIES = gettext_noop(
    "Too many sign-up tries from this address; try again in %(minutes)s minutes."
)


def throttle_sign_up(address: str | None) -> None:
    """Count one account made from `address`; refuse it over the `signup` rate."""
    _count_per_address("signup", "signup", address, SIGN_UPS)


def throttle_sign_up_try(address: str | None) -> None:
    """Count one sign-up form sent from `address`, whatever it answers; refuse it over the
    `signup_tries` rate. The form must say when a username is taken, so without this an
    address could ask about every username it liked: only accounts made were counted."""
    # "tries:ip:" and an IP address (45 characters at most) fit the scope's 60.
    _count_per_address("signup_tries", "tries", address, SIGN_UP_TRIES)


def _count_per_address(rate_name: str, scope: str, address: str | None, message: str) -> None:
    rate: str | None = api_settings.DEFAULT_THROTTLE_RATES.get(rate_name)
    if rate is None:
        return
    most, period = SimpleRateThrottle.parse_rate(None, rate)
    count, wait = counted_write(f"{scope}:ip:{address or 'unknown'}", period=period)
    if count > most:
        raise TooManyWrites(message, wait=wait, minutes=max(1, -(-wait // 60)))


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
    # The key is not looked up first: a write applied once is the rare case, so the work
    # runs and its key is stored with it. A key stored before makes that insert clash,
    # or the work a refusal, or its answer not a success; each rolls this attempt back
    # and the first answer is replayed. One statement less for every write.
    try:
        block = transaction.atomic()
        with block:
            inside = _rolled_back_whole.set(block)
            try:
                result = work()
            finally:
                _rolled_back_whole.reset(inside)
            kept = answer(result)
            if kept is None:
                stored = _stored(actor.scope, key, fingerprint)
                if stored is not None:
                    raise _Applied(stored)
            else:
                insert(  # built once a process (`tracker.row_writes`): every keyed write stores one
                    IdempotencyKey(
                        scope=actor.scope,
                        key=key,
                        fingerprint=fingerprint,
                        status_code=kept.status,
                        response_body=kept.body,
                    )
                )
    except _Applied as applied:
        return applied.replay
    except Exception:
        # Applied before, or the same request sent twice at once and the other one
        # committed first (its key clashed with ours, or its effect made ours a refusal);
        # or the key sent again with another request, which may be refused in any way
        # (a body that is not valid): 422 all the same. Everything this attempt did is
        # rolled back; the first answer stands.
        stored = _stored(actor.scope, key, fingerprint)
        if stored is not None:
            return stored
        raise
    return result


# The gate's atomic block while its work runs: any exception the work raises leaves the
# block and rolls it back whole (`write_once`).
_rolled_back_whole: ContextVar[transaction.Atomic | None] = ContextVar(
    "rolled_back_whole", default=None
)

Service = TypeVar("Service", bound=Callable[..., Any])


def write_transaction(service: Service) -> Service:
    """A write service's transaction, in place of `@transaction.atomic`: its own atomic
    block, a savepoint when another block holds it, except straight inside the gate's.

    A refusal leaves the gate's block and rolls back everything the write did, so a
    savepoint of the service's own there only costs two round trips (SAVEPOINT, RELEASE)
    of a tap's twelve. Anywhere else (a service called from another service, a test's
    transaction, a management command) the savepoint stays, so that a caller that catches
    the refusal can go on in its transaction. Written here because Django's `atomic` cannot
    know that its caller rolls back whole on any exception; it reads the connection's open
    blocks (`atomic_blocks`, Django's own list) to see whether the gate's is the innermost.
    """

    @functools.wraps(service)
    def in_a_transaction(*args: Any, **kwargs: Any) -> Any:
        gate_block = _rolled_back_whole.get()
        open_blocks = transaction.get_connection().atomic_blocks
        straight_inside = gate_block is not None and open_blocks[-1:] == [gate_block]
        with transaction.atomic(savepoint=not straight_inside):
            return service(*args, **kwargs)

    return in_a_transaction  # type: ignore[return-value]


class _Applied(Exception):
    """Rolls back a write whose key was applied before; carries the first answer."""

    def __init__(self, replay: Replay) -> None:
        super().__init__()
        self.replay = replay


def _stored(scope: str, key: str, fingerprint: str) -> Replay | None:
    """The stored answer to replay for this key, if it was applied before."""
    taken = IdempotencyKey.objects.filter(scope=scope, key=key).first()
    if taken is None:
        return None
    if taken.fingerprint != fingerprint:
        raise KeyReused(KEY_REUSED)
    return Replay(Answer(status=taken.status_code, body=taken.response_body))


def idempotency_keys_purge(*, older_than: timedelta = KEEP_FOR) -> int:
    """Delete keys older than `older_than` (never less than `KEEP_FOR`); returns how many.

    Run it from a scheduled job; keys are only ever removed here (or let go on failure).
    """
    cutoff = timezone.now() - max(older_than, KEEP_FOR)
    deleted, _by_model = IdempotencyKey.objects.filter(created_at__lt=cutoff).delete()
    return deleted
