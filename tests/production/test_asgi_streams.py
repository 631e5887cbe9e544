"""Under ASGI (`make serve`), a live stream's waiting part is served outside Django's
handler (`tracker.asgi.StreamsHandedOver`): its first events come through Django (the
middleware, the access checks, the log line), the rest from the wrapper once Django let
the request go, so an open stream holds no thread and a fraction of the objects.

The served application, `tracker.asgi.application`, on an event loop of its own in a
thread, as a uvicorn worker runs it; the phones are ASGI messages; the hub is the real
one (PostgreSQL's notifications, or polling on SQLite), the taps the app's own service.
"""

from __future__ import annotations

import asyncio
import gc
import threading
import time
from collections.abc import Callable, Iterator
from concurrent.futures import Future
from typing import Any

import pytest
from asgiref.sync import ThreadSensitiveContext

from tests.production.conftest import http_scope
from tracker import live as changes
from tracker.asgi import KeptThreads, application
from tracker.models import Session
from tracker.services import deal_tap, share_link_create
from tracker.views import live as live_view

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def loop() -> Iterator[asyncio.AbstractEventLoop]:
    """An event loop in a thread of its own, as a worker's; every task on it (the hub's
    too) is cancelled at the end."""
    loop = asyncio.new_event_loop()
    thread = threading.Thread(target=loop.run_forever, daemon=True)
    thread.start()
    yield loop

    async def cancel_all() -> None:
        tasks = [task for task in asyncio.all_tasks() if task is not asyncio.current_task()]
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)

    asyncio.run_coroutine_threadsafe(cancel_all(), loop).result(10)
    loop.call_soon_threadsafe(loop.stop)
    thread.join(10)
    loop.close()


class Phone:
    """A page on a GET: the messages it is sent, and a way to go away."""

    def __init__(self, path: str, query: bytes = b"") -> None:
        self.scope = http_scope("GET", path, [(b"host", b"testserver")])
        self.scope["query_string"] = query
        self.sent: list[dict[str, Any]] = []
        self.gone = asyncio.Event()
        self.asked = False
        self.call: Future[None] | None = None

    def open(self, loop: asyncio.AbstractEventLoop) -> Phone:
        self.call = asyncio.run_coroutine_threadsafe(
            application(self.scope, self.receive, self.send), loop
        )
        return self

    async def receive(self) -> dict[str, Any]:
        if not self.asked:
            self.asked = True
            return {"type": "http.request", "body": b"", "more_body": False}
        await self.gone.wait()
        return {"type": "http.disconnect"}

    async def send(self, message: dict[str, Any]) -> None:
        self.sent.append(message)

    def go_away(self, loop: asyncio.AbstractEventLoop) -> None:
        loop.call_soon_threadsafe(self.gone.set)

    @property
    def status(self) -> int:
        return self.sent[0]["status"] if self.sent else 0

    @property
    def said(self) -> str:
        return "".join(m.get("body", b"").decode() for m in self.sent[1:])

    @property
    def ended(self) -> bool:
        """The answer's end was sent: the last body message said there is no more."""
        return bool(self.sent) and self.sent[-1].get("more_body", False) is False

    def ends(self, within: float = 10) -> None:
        assert self.call is not None
        self.call.result(within)


def soon(condition: Callable[[], bool], within: float = 10) -> None:
    deadline = time.monotonic() + within
    while not condition():
        assert time.monotonic() < deadline, "not within the time"
        time.sleep(0.02)


def kept_threads() -> KeptThreads:
    app: Any = application
    while not isinstance(app, KeptThreads):
        app = app.app
    return app


def watchers(loop: asyncio.AbstractEventLoop) -> dict[int, int]:
    async def reading() -> dict[int, int]:
        return dict(changes.hub()._watchers)

    return asyncio.run_coroutine_threadsafe(reading(), loop).result(5)


@pytest.fixture
def table(make_session, actor):
    session, players = make_session()
    viewer = share_link_create(session_id=session.pk, role="viewer", actor=actor)
    return session, players, viewer.token


def test_a_stream_is_answered_through_django_then_goes_on_outside_it(
    loop, table, actor, request_log
):
    session, players, token = table
    phone = Phone(f"/s/{token}/live/", b"show=standings").open(loop)
    soon(lambda: "data: " in phone.said)

    # Through Django: its headers, its log line, the fragment and the version.
    assert phone.status == 200
    headers = {name.lower(): value for name, value in phone.sent[0]["headers"]}
    assert headers[b"content-type"] == b"text/event-stream"
    assert headers[b"cache-control"] == b"no-store"
    assert phone.said.startswith("retry: ")
    assert "event: standings" in phone.said
    assert [record.getMessage() for record in request_log] == ["GET /s/<token>/live/ 200"]
    # Django's answer ended, the phone's did not: the request's thread is free again.
    assert not phone.ended
    assert not phone.call.done()
    assert kept_threads().idle, "the stream still holds its request's thread"
    assert watchers(loop) == {session.pk: 1}

    # A tap that files the deal moves the rows: the wrapper sends the new rows, read and
    # rendered from the request the stream kept, and the version.
    deal = session.deals.get()
    heard = len(phone.said)
    for name in ("Alice", "Ben", "Cara"):
        deal_tap(deal_id=deal.pk, player_id=players[name].pk, actor=actor)
    version = Session.objects.get(pk=session.pk).version
    soon(lambda: f"data: {version}\n\n" in phone.said[heard:])
    assert "event: standings" in phone.said[heard:]
    assert "Alice" in phone.said[heard:]

    phone.go_away(loop)
    phone.ends()
    assert watchers(loop) == {}
    assert len(request_log) == 1  # one line a stream, as before


def test_a_stream_whose_time_is_up_ends_its_answer(loop, table, monkeypatch):
    _, _, token = table
    monkeypatch.setattr(live_view, "STREAM_FOR", 0.3)
    phone = Phone(f"/s/{token}/live/").open(loop)

    phone.ends()

    assert phone.status == 200
    assert phone.said.startswith("retry: ")
    assert phone.ended
    assert watchers(loop) == {}


def test_a_refused_stream_is_django_s_answer_whole(loop, db):
    phone = Phone(f"/s/{'x' * 43}/live/").open(loop)

    phone.ends()

    assert phone.status == 404
    assert phone.ended
    assert watchers(loop) == {}


def test_other_requests_pass_as_they_were(loop, db, monkeypatch):
    seen: list[object] = []
    django_app = kept_threads().app

    async def looking(scope, receive, send):
        seen.append(scope.get(changes.HANDED_OVER))
        await django_app(scope, receive, send)

    monkeypatch.setattr(kept_threads(), "app", looking)
    phone = Phone("/healthz").open(loop)

    phone.ends()

    assert phone.status == 200
    assert phone.ended
    assert seen == [None]


def test_open_streams_hold_no_thread_and_few_objects(loop, table):
    """What a worker holds for each open stream is what its full collections walk (the
    tail at 1,000 tables: docs/performance.md, session 15). Served whole by Django's
    handler, a stream held a thread and some 240 tracked objects (bench/streams.py)."""
    _, _, token = table
    warm = Phone(f"/s/{token}/live/").open(loop)
    soon(lambda: "data: " in warm.said)
    gc.collect()
    objects, threads = len(gc.get_objects()), threading.active_count()

    phones = []
    for _ in range(40):  # one after another, as phones come: each on the thread of the last
        phones.append(Phone(f"/s/{token}/live/").open(loop))
        soon(lambda: "data: " in phones[-1].said)
    time.sleep(0.2)
    gc.collect()
    per_stream = (len(gc.get_objects()) - objects) / len(phones)
    held_threads = threading.active_count() - threads
    # By type, not isinstance: a request's lazy objects would be evaluated by it.
    contexts = sum(type(thing) is ThreadSensitiveContext for thing in gc.get_objects())

    for phone in [warm, *phones]:
        phone.go_away(loop)
    for phone in [warm, *phones]:
        phone.ends()
    assert held_threads <= 1, held_threads  # a stream's thread is handed on (KeptThreads)
    assert contexts == 0, "a stream holds Django's request context"
    assert per_stream < 170, per_stream  # 122 when written, this test's phones included
