"""Live updates: a phone watching a session learns of its next change without asking.

Every change to a session moves its `version` on in the change's own transaction
(`tracker.services.locks`), and its `standings_version` or `access_version` when it may
have moved the standings' rows or narrowed who reaches it. On PostgreSQL a trigger sends
`NOTIFY squarescores_session, '<session id>:<version>:<standings_version>:<access_version>'`
as the change commits (migrations 0012, 0018). Each server process that streams live
updates holds one listening connection (`Hub`) and wakes the streams that watch the
session; a watching phone costs no requests and no queries while nothing changes, and a
stream reads nothing for a change that moved neither its rows nor its access.

Without PostgreSQL's notifications (SQLite; the listening connection lost and not yet
back) the hub reads the counters of every watched session in one query a second instead,
so a change is never missed, only learnt up to a second later.

The streams themselves are `tracker.views.live`; this module is the part shared by a
process's streams. It is written here because Django has no notifications of its own and
what there is for them (django-eventstream, channels) needs a broker or a second server.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import AsyncIterator, Iterable
from dataclasses import dataclass

import psycopg
from asgiref.sync import sync_to_async
from django.db import Error as DatabaseError
from django.db import close_old_connections, connection

from tracker.models import Session

CHANNEL = "squarescores_session"
POLL_EVERY = 1.0  # seconds, while notifications are not coming
RECONNECT_AFTER = (1, 2, 5, 10, 30)  # seconds, between attempts to listen again
REMEMBERED = 50_000  # the latest versions kept, of sessions changed lately
UNKNOWN = -1  # a counter a notification did not say (a server of before migration 0018)
COUNTERS = ("version", "standings_version", "access_version")
# The ASGI scope's key under which `tracker.asgi.StreamsHandedOver` takes a stream's
# waiting part from the view (`tracker.views.live`), to serve it outside Django's handler.
HANDED_OVER = "squarescores.handed_over"

logger = logging.getLogger("squarescores.live")


@dataclass(frozen=True)
class Versions:
    """A session's counters as a change committed them: `version` (moved by every change),
    `rows` (its `standings_version`: the standings' rows may have moved) and `access` (its
    `access_version`: who may reach it may have narrowed). A counter not known is
    `UNKNOWN`, which no stream holds: it reads again."""

    version: int
    rows: int = UNKNOWN
    access: int = UNKNOWN

    @classmethod
    def said(cls, payload: str) -> tuple[int, Versions] | None:
        """The session and its counters a notification says (`'<id>:<version>:<rows>:
        <access>'`, or `'<id>:<version>'` from a trigger before migration 0018)."""
        try:
            session_id, *counters = (int(part) for part in payload.split(":"))
            return session_id, cls(*counters[:3])
        except (TypeError, ValueError):  # not ours: too few parts, or not numbers
            return None


def _versions(session_ids: Iterable[int]) -> dict[int, Versions]:
    """The current counters of sessions, in one query (for the polling fallback), leaving
    no connection open behind it."""
    try:
        rows = Session.objects.filter(pk__in=list(session_ids)).values_list("pk", *COUNTERS)
        return {session_id: Versions(*counters) for session_id, *counters in rows}
    finally:
        close_old_connections()
        connection.close()


class Hub:
    """The sessions this process's streams watch, and their latest counters.

    `wait(session, after, timeout)` returns the session's counters once its version is
    past `after` (None on timeout). One task per process listens for notifications; it
    starts with the first stream and falls back to polling while it cannot listen.
    """

    def __init__(self) -> None:
        self._latest: dict[int, Versions] = {}
        self._changed: dict[int, asyncio.Event] = {}
        self._watchers: dict[int, int] = {}
        self._task: asyncio.Task[None] | None = None
        self.listening = False

    # --- What the streams use ---------------------------------------------------------

    def start(self) -> None:
        if self._task is None or self._task.done():
            self._task = asyncio.get_running_loop().create_task(self._run(), name="live-hub")

    @contextlib.asynccontextmanager
    async def watching(self, session_id: int) -> AsyncIterator[None]:
        self.start()
        self._watchers[session_id] = self._watchers.get(session_id, 0) + 1
        try:
            yield
        finally:
            self._watchers[session_id] -= 1
            if not self._watchers[session_id]:
                del self._watchers[session_id]
                self._changed.pop(session_id, None)

    async def wait(self, session_id: int, after: int, timeout: float) -> Versions | None:
        """The session's counters once its version is past `after`; None after `timeout`
        seconds."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout
        while True:
            latest = self._latest.get(session_id)
            if latest is not None and latest.version > after:
                return latest
            event = self._changed.setdefault(session_id, asyncio.Event())
            left = deadline - loop.time()
            if left <= 0:
                return None
            # A deadline on this task, not `wait_for`'s task of its own: a stream waits
            # here nearly all its minutes, and a task more a stream is more for each full
            # collection to walk (`tracker.asgi.StreamsHandedOver`).
            with contextlib.suppress(TimeoutError):
                async with asyncio.timeout(left):
                    await event.wait()

    # --- Learning of changes ----------------------------------------------------------

    def changed(self, session_id: int, versions: Versions) -> None:
        """A change committed. Every change moves the version on, and the counters said
        with the highest are the session as it is: an older notice changes nothing."""
        known = self._latest.get(session_id)
        if known is not None and versions.version <= known.version:
            return
        if session_id not in self._latest and len(self._latest) >= REMEMBERED:
            for stale in list(self._latest)[: REMEMBERED // 10]:  # the oldest tenth
                if stale not in self._watchers:
                    del self._latest[stale]
        self._latest[session_id] = versions
        event = self._changed.pop(session_id, None)
        if event is not None:
            event.set()  # wakes every stream of the session; the next wait makes a new one

    async def _run(self) -> None:
        attempt = 0
        while True:
            if connection.vendor == "postgresql":
                try:
                    await self._listen()
                    attempt = 0
                except (psycopg.Error, OSError) as error:
                    logger.warning("live: not listening (%s); polling meanwhile", error)
                finally:
                    self.listening = False
            pause = RECONNECT_AFTER[min(attempt, len(RECONNECT_AFTER) - 1)]
            attempt += 1
            loop = asyncio.get_running_loop()
            until = loop.time() + pause
            while loop.time() < until or connection.vendor != "postgresql":
                try:
                    await self._poll()
                except DatabaseError as error:
                    # The database down too: this task is every stream's of the process,
                    # so it polls on and they hear the changes once it is back.
                    logger.warning("live: cannot read the watched sessions (%s)", error)
                await asyncio.sleep(POLL_EVERY)

    async def _listen(self) -> None:
        params = connection.get_connection_params()
        params.pop("cursor_factory", None)
        params.pop("context", None)
        async with await psycopg.AsyncConnection.connect(**params, autocommit=True) as listener:
            await listener.execute(f"LISTEN {CHANNEL}")
            self.listening = True
            # Whatever changed while nobody listened: one query for every watched session.
            if self._watchers:
                rows = await listener.execute(
                    f"SELECT id, {', '.join(COUNTERS)} FROM {Session._meta.db_table}"
                    " WHERE id = ANY(%s)",
                    [list(self._watchers)],
                )
                for session_id, *counters in await rows.fetchall():
                    self.changed(session_id, Versions(*counters))
            async for notice in listener.notifies():
                said = Versions.said(notice.payload)
                if said is not None:
                    self.changed(*said)

    async def _poll(self) -> None:
        if not self._watchers:
            return
        versions = await sync_to_async(_versions, thread_sensitive=False)(list(self._watchers))
        for session_id, counters in versions.items():
            self.changed(session_id, counters)


_hubs: dict[asyncio.AbstractEventLoop, Hub] = {}


def hub() -> Hub:
    """This process's hub (one per event loop)."""
    loop = asyncio.get_running_loop()
    if loop not in _hubs:
        _hubs[loop] = Hub()
    return _hubs[loop]
