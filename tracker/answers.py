"""Answers kept by the session's version: what a session's readers are shown, computed once
a version and served from memory to every other phone that asks at that version.

Every change to a session moves `Session.version` on in its own transaction
(`tracker.services.locks`), so a version names one state of the session for good: an
answer kept under it can never be stale, and nothing has to be thrown away when the
session changes (the next version simply has no answer yet). What else an answer depends
on goes in its key too: the way in (the request's path, which names the session or link,
and its query), the caller's role and the language.

This is what keeps watching cheap when a tap moves the version on: the table's phones all
fetch the same standings, and only the first of them a worker pays for reading and
rendering them (issue 15; docs/performance.md).

An answer that shows only the standings' rows, a closed deal or the settle-up (and the
standings page's fragment, which writes the version it says in as it is served:
`tracker.views.standings`) may be kept by the session's `standings_version` instead
(`counter`, `ROWS`), which moves, in the same transaction, with everything the rows are
made of (running totals, seats, names), with the session's end, with every change to a
closed deal (its filing undone, a correction) and with every payment
(`tracker.services.locks.standings_moved`), and with nothing else: two taps in three file
nothing and move only the version, and the answers kept before them are still the
answers. The live standings page already reads its rows again only when that counter
moves (`tracker.views.live`).
`tests/api/test_kept_standings_walk.py` holds each such answer to one computed afresh
after every step of random evenings.

Django's local-memory cache holds them (the `answers` cache in settings): one per worker
process, least recently used first out. Nothing is shared between processes, so nothing
has to be kept in step; a worker that never saw a version computes it once itself.
"""

from __future__ import annotations

import hashlib
import threading
from collections.abc import Callable
from datetime import datetime
from typing import Any, TypeVar

from django.core.cache import caches
from django.utils.translation import get_language

from tracker.models import Session

T = TypeVar("T")
CACHE = "answers"
_MISSING = object()
_guard = threading.Lock()
_computing: dict[str, threading.Lock] = {}  # keys being computed in this process


VERSION = "version"  # every change moves it on
ROWS = "standings_version"  # what the standings' rows are made of moved


def key(session: Session, *parts: object, counter: str = VERSION) -> str:
    """The key of an answer about `session` as it is now, by its `counter`."""
    return key_at(
        session.pk, getattr(session, counter), session.started_at, *parts, counter=counter
    )


def key_at(
    session_id: int, version: int, started_at: datetime, *parts: object, counter: str = VERSION
) -> str:
    """The key of an answer about a session at `version` of its `counter`. The session's
    start time goes in with its id: a database that hands a deleted session's id out again
    (SQLite can) would otherwise find the old session's answers."""
    text = "\x1f".join(
        str(part)
        for part in (
            session_id,
            counter,
            version,
            started_at.timestamp(),
            get_language(),
            *parts,
        )
    )
    return hashlib.blake2b(text.encode(), digest_size=20).hexdigest()


def peek(name: str) -> Any:
    """The answer kept under the key `name` (`key_at`), or None: none is kept (no answer
    kept is None itself). For a caller that read the session's version without its row
    (`tracker.glance`): it computes nothing, and goes the long way when nothing is kept."""
    found = caches[CACHE].get(name, _MISSING)
    return None if found is _MISSING else found


def kept(
    session: Session,
    parts: tuple[object, ...],
    compute: Callable[[], T],
    *,
    counter: str = VERSION,
) -> T:
    """The answer kept for `session` at its `counter` (its version, or `ROWS`) with
    `parts`, else `compute()`'s, kept. `compute` must depend on nothing else that can
    change without moving that counter on, and return something picklable.

    A change wakes every stream of the table at once, each in its own thread: the first
    computes, and the others with the same key wait for its answer rather than each
    computing it too."""
    cache = caches[CACHE]
    name = key(session, *parts, counter=counter)
    found = cache.get(name, _MISSING)
    if found is not _MISSING:
        return found  # type: ignore[return-value]
    with _guard:
        lock = _computing.setdefault(name, threading.Lock())
    try:
        with lock:
            found = cache.get(name, _MISSING)
            if found is not _MISSING:
                return found  # type: ignore[return-value]
            answer = compute()
            cache.set(name, answer)
            return answer
    finally:
        with _guard:
            if _computing.get(name) is lock:
                del _computing[name]


def forget_all() -> None:
    """Empty this process's answers (tests: a rolled-back database hands ids out again)."""
    caches[CACHE].clear()
