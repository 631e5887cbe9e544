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
    # The process keeps a hub a loop (`tracker.live._hubs`), its cancelled task with it: one
    # cancelled while connecting to listen would keep that connection open, and PostgreSQL
    # would refuse to drop the test database.
    changes._hubs.pop(loop, None)
    gc.collect()


class Phone:
    """A page on a GET: the messages it is sent, and a way to go away."""

    def __init__(self, path: str, query: bytes = b"") -> None:
        self.scope = http_scope("GET", path, [(b"host", b"testserver")])
        self.scope["query_string"] = query
        self.sent: list[dict[str, Any]] = []
        self.gone = asyncio.Event()
        self.asked = False
        self.call: Future[None] | None = None

    def open(self, loop: asyncio.AbstractEventLoop, app: Any = application) -> Phone:
        self.call = asyncio.run_coroutine_threadsafe(app(self.scope, self.receive, self.send), loop)
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
    # Given back once Django's handler returned, a moment after it sent the first events.
    soon(lambda: bool(kept_threads().idle))
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


# What a context holds for each `asgiref.local.Local` given a value in it: as many as the
# process has made Locals, which earlier tests of the process add to.
LOCALS_STORAGE = {"_Storage", "hamt", "hamt_bitmap_node", "hamt_array_node", "hamt_collision_node"}


def tracked() -> int:
    return sum(type(thing).__name__ not in LOCALS_STORAGE for thing in gc.get_objects())


def django_contexts() -> int:
    # By type, not isinstance: a request's lazy objects would be evaluated by it.
    return sum(type(thing) is ThreadSensitiveContext for thing in gc.get_objects())


def holding(app, loop, token: str, count: int) -> tuple[float, int, int]:
    """`count` streams opened one after another through `app`, as phones come: the
    objects the collector tracks for each, the threads held, the `ThreadSensitiveContext`s
    (Django's request context) they keep alive; then they go."""
    warm = Phone(f"/s/{token}/live/").open(loop, app)
    soon(lambda: "data: " in warm.said)
    gc.collect()
    objects, threads, idle = tracked(), threading.active_count(), len(kept_threads().idle)
    contexts = django_contexts()
    phones = []
    for _ in range(count):  # each on the thread the last one gave back, if it did
        phones.append(Phone(f"/s/{token}/live/").open(loop, app))
        soon(lambda: "data: " in phones[-1].said)
    time.sleep(0.2)
    gc.collect()
    per_stream = (tracked() - objects) / count
    # The threads started for them, and the idle ones (`KeptThreads`) they took.
    held_threads = threading.active_count() - threads + idle - len(kept_threads().idle)
    contexts = django_contexts() - contexts
    for phone in [warm, *phones]:
        phone.go_away(loop)
    for phone in [warm, *phones]:
        phone.ends()
    return per_stream, held_threads, contexts


def test_open_streams_hold_no_thread_and_half_the_objects(loop, table):
    """What a worker holds for each open stream is what its full collections walk (the
    tail at 1,000 tables: docs/performance.md, sessions 15 and 16). Against the same
    streams served whole by Django's handler (`KeptThreads` without the wrapper), in the
    same process: 133 objects a stream against 236 when written, these phones included
    (bench/streams.py: 122 against 239). The storage of `asgiref.local.Local`s in each
    context is left out of the count, since it grows with the Locals that earlier tests of
    the process made."""
    _, _, token = table

    handed, handed_threads, contexts = holding(application, loop, token, 40)
    whole, whole_threads, whole_contexts = holding(kept_threads(), loop, token, 40)

    assert whole_threads >= 40 and whole_contexts >= 40  # each held its thread, its context
    assert handed_threads <= 1, handed_threads  # handed on to the next (KeptThreads)
    assert contexts == 0, "a stream holds Django's request context"
    assert handed < 0.65 * whole, (handed, whole)
