"""Under ASGI (`make serve`), a request's synchronous code runs on a thread kept from one
request to the next (`tracker.asgi.KeptThreads`), not on a thread started for each.
"""

from __future__ import annotations

import asyncio
import threading

import pytest
from asgiref.sync import ThreadSensitiveContext, async_to_sync, sync_to_async
from django.db import connection

from tests.production.conftest import http_scope
from tracker.asgi import KeptThreads, application

SCOPE = {"type": "http", "method": "GET", "path": "/"}


async def _nothing_sent(message):
    return None


async def _nothing_received():
    await asyncio.Event().wait()


class ThreadOf:
    """An app that answers on the thread of its synchronous code, inside the context
    Django's handler opens of its own, as Django's does."""

    def __init__(self, work=threading.get_ident):
        self.work = work

    async def __call__(self, scope, receive, send):
        async with ThreadSensitiveContext():  # what Django's ASGIHandler does
            scope["thread"] = await sync_to_async(self.work)()


def served(app, count=1):
    """The threads `count` requests to `app` at once ran their synchronous code on."""

    async def serve():
        scopes = [dict(SCOPE) for _ in range(count)]
        await asyncio.gather(*(app(s, _nothing_received, _nothing_sent) for s in scopes))
        return [s["thread"] for s in scopes]

    return async_to_sync(serve)()


def test_one_request_after_another_runs_on_the_same_thread():
    app = KeptThreads(ThreadOf())

    first, second, third = (served(app)[0] for _ in range(3))

    assert first == second == third != threading.get_ident()
    assert len(app.idle) == 1


def test_requests_at_once_each_have_a_thread_of_their_own():
    def slow():
        threading.Event().wait(0.05)  # long enough for the other requests to start
        return threading.get_ident()

    app = KeptThreads(ThreadOf(slow))

    threads = served(app, count=4)

    assert len(set(threads)) == 4
    assert len(app.idle) == 4
    assert set(served(app, count=4)) == set(threads)  # kept, and used again


@pytest.fixture
def stuck():
    """A call that runs until the test ends; `stuck.started` is set once it runs."""
    release, started = threading.Event(), threading.Event()

    def call():
        started.set()
        release.wait(10)

    call.started = started
    yield call
    release.set()


async def left_running(call):
    """`call` on the request's thread, no longer waited for (its task cancelled once the
    call runs): the call runs on."""
    task = asyncio.ensure_future(sync_to_async(call)())
    while not call.started.is_set():
        await asyncio.sleep(0.001)
    task.cancel()


def test_a_thread_still_busy_when_its_request_ended_is_not_handed_on(stuck):
    """A call left running when its request ended (Django's handler waits for its view,
    so this is the safety net): the next request must not queue behind it."""

    async def abandoning(scope, receive, send):
        async with ThreadSensitiveContext():
            await left_running(stuck)
            scope["thread"] = None

    app = KeptThreads(abandoning)
    served(app)
    assert app.idle == []  # the busy one was not kept
    app.app = ThreadOf()
    assert served(app)[0] is not None  # answered at once, on another thread


def test_no_more_than_keep_idle_threads_are_kept(monkeypatch):
    monkeypatch.setattr(KeptThreads, "KEEP", 2)

    def slow():
        threading.Event().wait(0.05)
        return threading.get_ident()

    app = KeptThreads(ThreadOf(slow))
    served(app, count=5)

    assert len(app.idle) == 2


def test_other_messages_than_http_pass_through():
    seen = []

    async def lifespan_app(scope, receive, send):
        seen.append(scope["type"])

    async_to_sync(KeptThreads(lifespan_app))({"type": "lifespan"}, _nothing_received, _nothing_sent)

    assert seen == ["lifespan"]


@pytest.mark.django_db(transaction=True)
def test_the_app_answers_on_a_kept_thread_and_closes_its_connection_each_time():
    """The served app end to end: each request's connection is closed at its end, as on a
    thread started for it, so a kept thread carries no connection to the next request."""
    connections_after = []

    async def call():
        state = {}

        async def send(message):
            if message["type"] == "http.response.start":
                state["status"] = message["status"]

        scope = http_scope("GET", "/healthz", [(b"host", b"testserver")])
        received = iter([{"type": "http.request", "body": b"", "more_body": False}])

        async def receive():
            try:
                return next(received)
            except StopIteration:
                await asyncio.Event().wait()

        await application(scope, receive, send)
        kept = application.app.app.idle[-1]  # the thread this request ran on, now idle
        connections_after.append(
            await asyncio.wrap_future(kept.submit(lambda: connection.connection is None))
        )
        return state["status"]

    assert [async_to_sync(call)() for _ in range(3)] == [200, 200, 200]
    assert connections_after == [True, True, True]


def test_a_call_cancelled_behind_a_running_one_does_not_make_the_thread_look_free(stuck):
    """The last call given to the thread was cancelled before it started, while the one
    before it still runs: the thread is still busy (a reviewer's finding)."""

    async def abandoning(scope, receive, send):
        async with ThreadSensitiveContext():
            await left_running(stuck)
            second = asyncio.ensure_future(sync_to_async(threading.get_ident)())
            await asyncio.sleep(0.01)  # queued behind the first
            second.cancel()
            await asyncio.sleep(0.01)  # the second call cancelled, the first still running
            scope["thread"] = None

    app = KeptThreads(abandoning)
    served(app)
    assert app.idle == []
