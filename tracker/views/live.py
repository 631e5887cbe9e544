"""A session's changes as they happen, for the pages that follow it (standings, the tap
screen): server-sent events, `GET <session>/live/`.

The stream says the session's version at once, then each new version as it commits
(`data: <version>`), with a comment every `HEARTBEAT` seconds; the page fetches what it
shows only when the version passed its own. After `STREAM_FOR` the server ends the stream
and the browser's EventSource reconnects (after `retry`), which spreads the streams over
the server's processes again after a restart.

The standings page asks for more (`?show=standings&seen=<the rows it shows>`): the
stream sends the standings fragment itself (`event: standings`, its rows' `seen` as the
event's id) whenever the rows differ from those the page shows, at once and after each
change, so a watching phone never asks. A change that moves no row (two taps out of
three) sends nothing but the version, and is not even compared: the rows are read again
only when the session's `standings_version` moved (running totals, seats, names). The
fragment is kept by version (`tracker.answers`): the streams a process holds for one
table render it once between them. A reconnecting browser names the rows it last got
(`Last-Event-ID`).

A stream reads the link or the membership again (one query) only when the session's
`access_version` moved: a link revoked or replaced, a member removed. It moves in the
same transaction and is said with the version (`tracker.live.Versions`), so a revoked
link or a removed member hears no more, at once; and a tap, which moves neither it nor
the rows, costs the streams no query at all: they say the version they were told.

Served by ASGI (`make serve`: gunicorn with uvicorn workers; `make run`: uvicorn alone), a
stream is a coroutine waiting on `tracker.live.Hub`: no thread, no database connection and
no query while nothing changes. Its first events are Django's answer, through the
middleware like any request's; the rest is served by `tracker.asgi.StreamsHandedOver`
once Django's handler has let the request go, so a stream holds no more than what it
follows and the stripped request its looks read (`_Follower.answered`).

Served by WSGI (`tracker.wsgi`, the tests' live server), the same URL streams from a
thread that reads the version every second, and ends after `SYNC_STREAM_FOR`: a thread a
watching phone, so a WSGI server carries tens of them, not hundreds.
"""

from __future__ import annotations

import asyncio
import random
import threading
import time
from collections.abc import AsyncIterator, Iterator
from dataclasses import dataclass

from asgiref.sync import sync_to_async
from django.contrib.auth import get_user
from django.core.handlers.asgi import ASGIRequest
from django.db import connection
from django.http import HttpRequest, HttpResponse, HttpResponseNotAllowed, StreamingHttpResponse
from django.utils import translation

from tracker import live as changes
from tracker.access import Role
from tracker.errors import Refusal
from tracker.live import COUNTERS, Versions
from tracker.middleware import DATABASE_DOWN, database_logger, loggable_path
from tracker.models import Session
from tracker.views import standings
from tracker.views.doors import SessionPage, reach, refused

HEARTBEAT = 20.0  # seconds between comments on a quiet stream (keeps proxies from closing it)
STREAM_FOR = 300.0  # seconds, ±20 %, before the browser is asked to reconnect
SYNC_STREAM_FOR = 25.0
RETRY_MS = 1500


def _event(version: int) -> str:
    return f"data: {version}\n\n"


def _standings_event(seen: str, fragment: bytes) -> str:
    lines = "".join(f"data: {line}\n" for line in fragment.decode().splitlines())
    return f"event: standings\nid: {seen}\n{lines}\n"


@dataclass
class _Follower:
    """What one stream follows: the session, the version it last said, and for a
    standings page (`push`) the rows the page shows."""

    request: HttpRequest
    session_id: int | None
    token: str | None
    session: int = 0
    version: int = 0
    push: bool = False
    seen: str = ""
    rows_at: int = -1  # the `standings_version` the rows were last compared at
    access_at: int = -1  # the `access_version` the link or membership was last read at
    language: str | None = None  # the page's, as LocaleMiddleware chose it

    def answered(self) -> None:
        """Let go of what the request's answer needed and the stream's later looks do
        not. A stream holds its request for minutes, and a full collection walks all it
        holds (docs/performance.md, session 15): the messages' storages, the (empty)
        body, and the resolver's record of every pattern it tried before this one (36
        lists; its match stays, which the log reads to hide a link's token). What a look
        reads stays: the sign-in, the headers, the query, the language."""
        kept = vars(self.request)
        kept.pop("_messages", None)  # a fragment's template reads none: they are a page's
        kept.pop("_stream", None)
        match = kept.get("resolver_match")
        if match is not None:
            match.tried = []

    def must_look(self, now: Versions) -> bool:
        """Whether a change to `now` needs reading: who may reach the session may have
        narrowed, or (for a standings page) its rows moved. Otherwise the version alone
        tells the page all there is."""
        return now.access != self.access_at or (self.push and now.rows != self.rows_at)

    def told(self, now: Versions) -> str | None:
        """The events for a change to `now`: read again if it must, the version at least;
        None once the caller may not see the session any more."""
        said = ""
        if self.must_look(now):
            # In the phone's language, as its first events were: a stream handed over
            # (`tracker.asgi.StreamsHandedOver`) goes on outside the task whose context
            # LocaleMiddleware activated it in.
            with translation.override(self.language):
                said = self.look(access_moved=now.access != self.access_at)
        if said is None:
            return None
        if now.version > self.version:  # told of a version the read did not see yet
            self.version = now.version
            said += _event(now.version)
        return said

    def look(self, page: SessionPage | None = None, *, access_moved: bool = True) -> str | None:
        """The events that tell the page what changed since it last heard: the version,
        and for a standings page the fragment when its rows moved. None once the caller
        may not see the session any more (a revoked link, a member removed, an account
        signed out by a password change or deactivated)."""
        try:
            if page is None and access_moved and self.token is None:
                # The sign-in again, as the next request would read it: refused once the
                # account is deactivated or its password changed.
                self.request.user = get_user(self.request)
                if not self.request.user.is_authenticated:
                    return None
            if page is None:
                page = reach(
                    self.request, session_id=self.session_id, token=self.token, need=Role.VIEWER
                )
            self.session = page.session.pk
            self.access_at = page.session.access_version
            said = ""
            # The rows are compared again only when they may have moved: two taps in
            # three (and every event) move the version on but no row.
            if self.push and page.session.standings_version != self.rows_at:
                self.seen, fragment = standings.pushed(self.request, page, self.seen)
                self.rows_at = page.session.standings_version
                if fragment is not None:
                    said = _standings_event(self.seen, fragment)
            if said or page.session.version > self.version:
                self.version = max(self.version, page.session.version)
                said += _event(self.version)
            return said
        except Refusal:
            return None
        finally:
            _let_go(self.request)


def _let_go(request: HttpRequest) -> None:
    """An ASGI stream holds no connection while it waits (it may last minutes). A WSGI
    stream reads from its own thread's connection, which Django closes at the end;
    closing it here would break a test's transaction on PostgreSQL."""
    if isinstance(request, ASGIRequest) and not connection.in_atomic_block:
        connection.close()


def _opening(
    request: HttpRequest, session_id: int | None, token: str | None
) -> tuple[_Follower, str] | HttpResponse:
    """What this request may follow and its first events, or the refusal."""
    try:
        if token is None and not request.user.is_authenticated:
            return HttpResponse(status=403)
        page = reach(request, session_id=session_id, token=token, need=Role.VIEWER)
        follower = _Follower(request, session_id, token, version=-1)
        follower.language = translation.get_language()
        follower.push = request.GET.get("show") == "standings"
        follower.seen = request.headers.get("Last-Event-ID") or request.GET.get("seen", "")
        first = follower.look(page)
        assert first  # the version, at least
        return follower, f"retry: {RETRY_MS}\n" + first
    except Refusal as refusal:
        return refused(request, refusal)
    finally:
        _let_go(request)


async def live(
    request: HttpRequest, session_id: int | None = None, token: str | None = None
) -> HttpResponse:
    if request.method != "GET":
        return HttpResponseNotAllowed(["GET"])
    # Served by ASGI, in a thread of the loop's pool: the request's own thread would stay
    # for the stream's minutes, one idle thread a watching phone. Served by WSGI, in the
    # request's thread, whose connection it reads from.
    served_async = isinstance(request, ASGIRequest)
    opened = await sync_to_async(_opening, thread_sensitive=not served_async)(
        request, session_id, token
    )
    if isinstance(opened, HttpResponse):
        return opened
    follower, first = opened
    if not served_async:
        stream: AsyncIterator[str] | Iterator[str] = _stream_from_a_thread(follower, first)
    elif (handed := request.scope.get(changes.HANDED_OVER)) is not None:
        stream = _handing_over(first, follower, handed)
    else:  # Django's ASGI handler alone (its test client): the whole stream in its answer
        stream = _stream(follower, first)
    response = StreamingHttpResponse(stream, content_type="text/event-stream")
    response["Cache-Control"] = "no-store"
    response["X-Accel-Buffering"] = "no"  # nginx: pass each event on at once
    return response


async def _handing_over(
    first: str, follower: _Follower, handed: list[AsyncIterator[str]]
) -> AsyncIterator[str]:
    """Django's answer: the first events, then the rest of the stream handed to
    `tracker.asgi.StreamsHandedOver`, which serves it once Django's handler has let the
    request go (its thread, its tasks, the middleware's objects). Handed over only once
    Django has sent the first events: an answer that never got this far (an error, the
    phone gone) leaves nothing to serve."""
    yield first
    follower.answered()
    handed.append(_stream(follower))


async def _stream(follower: _Follower, first: str = "") -> AsyncIterator[str]:
    """The stream's events: `first` (if any), then each change as it commits, a comment
    every `HEARTBEAT` seconds, until `STREAM_FOR` is up."""
    hub = changes.hub()
    session = follower.session
    async with hub.watching(session):
        if first:
            yield first
        loop = asyncio.get_running_loop()
        end = loop.time() + STREAM_FOR * random.uniform(0.8, 1.2)
        while (left := end - loop.time()) > 0:
            # At once if it changed since the first look.
            newer = await hub.wait(session, follower.version, min(HEARTBEAT, left))
            if newer is None:
                yield ": still here\n\n"
                continue
            if follower.must_look(newer):
                # Access read again, the standings rendered: in a thread of the loop's pool.
                try:
                    said = await sync_to_async(follower.told, thread_sensitive=False)(newer)
                except DATABASE_DOWN as error:
                    _ended_for(follower, error)
                    return
            else:
                said = follower.told(newer)  # the version alone: no query, no thread
            if said is None:
                return
            yield said


def _ended_for(follower: _Follower, error: Exception) -> None:
    """A stream that could not read what a change needs (the database unreachable, or
    every pooled connection busy past `DB_POOL_TIMEOUT`) ends, as a page's request would
    get its 503: the browser listens again after `retry`."""
    database_logger.warning(
        "Database unavailable during the live stream of %s: %s; it ended, and the page"
        " listens again",
        loggable_path(follower.request),
        error,
    )


class _ThreadStreams:
    """How many WSGI streams are open in this process. Each reads the version from the
    request's thread; the browser tests wait for them to end before the next test
    (tests/browser/conftest.py)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self.open = 0

    def add(self, change: int) -> None:
        with self._lock:
            self.open += change


thread_streams = _ThreadStreams()


def _stream_from_a_thread(follower: _Follower, first: str) -> Iterator[str]:
    thread_streams.add(1)
    try:
        yield first
        end = time.monotonic() + SYNC_STREAM_FOR
        while time.monotonic() < end:
            time.sleep(1)
            # A comment first: a phone that went away fails this write, which ends the
            # stream before it reads again.
            yield ":\n\n"
            try:
                counters = (
                    Session.objects.filter(pk=follower.session).values_list(*COUNTERS).first()
                )
                if counters is None:
                    return
                now = Versions(*counters)
                said = follower.told(now) if now.version > follower.version else ""
            except DATABASE_DOWN as error:
                _ended_for(follower, error)
                return
            if said is None:
                return
            if said:
                yield said
    finally:
        thread_streams.add(-1)
