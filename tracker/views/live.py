"""A session's changes as they happen, for the pages that follow it (standings, the tap
screen): server-sent events, `GET <session>/live/`.

The stream says the session's version at once, then each new version as it commits
(`data: <version>`), with a comment every `HEARTBEAT` seconds; the page fetches what it
shows only when the version passed its own. After `STREAM_FOR` the server ends the stream
and the browser's EventSource reconnects (after `retry`), which spreads the streams over
the server's processes again after a restart.

Served by an ASGI worker (`make serve`: gunicorn with uvicorn workers), a stream is a
coroutine waiting on `tracker.live.Hub`: no thread, no database connection and no query
while nothing changes. Served by WSGI (`make run`'s development server, the tests'
server), the same URL streams from a thread that reads the version every second, and ends
after `SYNC_STREAM_FOR`.
"""

from __future__ import annotations

import asyncio
import random
import threading
import time
from collections.abc import AsyncIterator, Iterator

from asgiref.sync import sync_to_async
from django.core.handlers.asgi import ASGIRequest
from django.db import connection
from django.http import HttpRequest, HttpResponse, HttpResponseNotAllowed, StreamingHttpResponse

from tracker import live as changes
from tracker.access import Role
from tracker.errors import Refusal
from tracker.models import Session
from tracker.views.doors import reach, refused

HEARTBEAT = 20.0  # seconds between comments on a quiet stream (keeps proxies from closing it)
STREAM_FOR = 300.0  # seconds, ±20 %, before the browser is asked to reconnect
SYNC_STREAM_FOR = 25.0
RETRY_MS = 1500


def _event(version: int) -> str:
    return f"data: {version}\n\n"


def _opening(
    request: HttpRequest, session_id: int | None, token: str | None
) -> tuple[int, int] | HttpResponse:
    """The session this request may follow and its version now, or the refusal."""
    served_async = isinstance(request, ASGIRequest)
    try:
        if token is None and not request.user.is_authenticated:
            return HttpResponse(status=403)
        page = reach(request, session_id=session_id, token=token, need=Role.VIEWER)
        return page.session.pk, page.session.version
    except Refusal as refusal:
        return refused(request, refusal)
    finally:
        # An ASGI stream holds no connection while it waits (it may last minutes). A WSGI
        # stream reads from its own thread's connection, which Django closes at the end;
        # closing it here would break a test's transaction on PostgreSQL.
        if served_async and not connection.in_atomic_block:
            connection.close()


async def live(
    request: HttpRequest, session_id: int | None = None, token: str | None = None
) -> HttpResponse:
    if request.method != "GET":
        return HttpResponseNotAllowed(["GET"])
    opened = await sync_to_async(_opening)(request, session_id, token)
    if isinstance(opened, HttpResponse):
        return opened
    session, version = opened
    stream = (
        _stream(session, version)
        if isinstance(request, ASGIRequest)
        else _stream_from_a_thread(session, version)
    )
    response = StreamingHttpResponse(stream, content_type="text/event-stream")
    response["Cache-Control"] = "no-store"
    response["X-Accel-Buffering"] = "no"  # nginx: pass each event on at once
    return response


async def _stream(session_id: int, version: int) -> AsyncIterator[str]:
    hub = changes.hub()
    async with hub.watching(session_id):
        version = hub.latest(session_id, version)
        yield f"retry: {RETRY_MS}\n" + _event(version)
        loop = asyncio.get_running_loop()
        end = loop.time() + STREAM_FOR * random.uniform(0.8, 1.2)
        while (left := end - loop.time()) > 0:
            newer = await hub.wait(session_id, version, min(HEARTBEAT, left))
            if newer is None:
                yield ": still here\n\n"
            else:
                version = newer
                yield _event(version)


class _ThreadStreams:
    """How many WSGI streams are open in this process. Each reads the version from the
    request's thread; a test server that shares one SQLite connection between threads
    waits for them to end before it empties the database (tests/browser/conftest.py)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self.open = 0

    def add(self, change: int) -> None:
        with self._lock:
            self.open += change


thread_streams = _ThreadStreams()


def _stream_from_a_thread(session_id: int, version: int) -> Iterator[str]:
    thread_streams.add(1)
    try:
        yield f"retry: {RETRY_MS}\n" + _event(version)
        end = time.monotonic() + SYNC_STREAM_FOR
        while time.monotonic() < end:
            time.sleep(1)
            # A comment first: a phone that went away fails this write, which ends the
            # stream before it reads again.
            yield ":\n\n"
            now = Session.objects.filter(pk=session_id).values_list("version", flat=True).first()
            if now is None:
                return
            if now > version:
                version = now
                yield _event(version)
    finally:
        thread_streams.add(-1)
