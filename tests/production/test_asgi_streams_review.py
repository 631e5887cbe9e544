"""Review of the hand-over of a live stream's waiting part to `tracker.asgi.StreamsHandedOver`
(commit ff41e0d): phones that go away early, streams refused or failing mid-way, requests
to /live/ that are not streams, the stripped request's later looks, and the paths that
do not hand over (Django's AsyncClient, WSGI).

Served as in tests/production/test_asgi_streams.py: `tracker.asgi.application` on an
event loop of its own in a thread, the phones ASGI messages.
"""

from __future__ import annotations

import asyncio
import logging
import socket
import threading
import time
from typing import Any

import pytest
from django.conf import settings
from django.db import OperationalError, connection
from django.test import AsyncClient, Client

from tests.production.conftest import Keep
from tests.production.test_asgi_streams import (  # noqa: F401  (fixtures)
    Phone,
    kept_threads,
    loop,
    soon,
    table,
    watchers,
)
from tests.production.test_serve import free_port
from tracker import live as changes
from tracker.asgi import application, django_application
from tracker.models import Session
from tracker.services import deal_tap, member_remove, share_link_revoke
from tracker.views import live as live_view

pytestmark = pytest.mark.django_db(transaction=True)


class Caller(Phone):
    """A phone that says more than a bare GET: its method, headers and body (in chunks),
    then waits until it goes away."""

    def __init__(
        self,
        path: str,
        query: bytes = b"",
        *,
        method: str = "GET",
        headers: tuple[tuple[bytes, bytes], ...] = (),
        body: tuple[bytes, ...] = (b"",),
    ) -> None:
        super().__init__(path, query)
        self.scope["method"] = method
        self.scope["headers"] = [(b"host", b"testserver"), *headers]
        self.chunks = list(body)

    async def receive(self) -> dict[str, Any]:
        if self.chunks:
            chunk = self.chunks.pop(0)
            return {"type": "http.request", "body": chunk, "more_body": bool(self.chunks)}
        await self.gone.wait()
        return {"type": "http.disconnect"}


def finals(phone: Phone) -> int:
    """How many times the phone was told the answer ended."""
    return sum(
        1
        for message in phone.sent
        if message["type"] == "http.response.body" and not message.get("more_body", False)
    )


def tasks_left(loop: asyncio.AbstractEventLoop) -> list[str]:  # noqa: F811
    """The loop's tasks but the hub's, uvicorn's serving task and this look's own."""

    async def reading() -> list[str]:
        return [
            repr(task)
            for task in asyncio.all_tasks()
            if task is not asyncio.current_task()
            and task.get_name() != "live-hub"
            and not task.get_coro().__qualname__.startswith("Server.")  # uvicorn's own
        ]

    return asyncio.run_coroutine_threadsafe(reading(), loop).result(5)


def nothing_left(loop: asyncio.AbstractEventLoop) -> None:  # noqa: F811
    soon(lambda: watchers(loop) == {} and tasks_left(loop) == [], within=5)


def file_a_deal(session: Session, players: dict, actor) -> int:
    deal = session.deals.get()
    for name in ("Alice", "Ben", "Cara"):
        deal_tap(deal_id=deal.pk, player_id=players[name].pk, actor=actor)
    return Session.objects.get(pk=session.pk).version


@pytest.fixture(autouse=True)
def threads_as_found():
    """The executors `KeptThreads` keeps idle, as they were before each test: the tests
    that count a stream's threads (test_asgi_streams.py) count on a process's idle ones."""
    before = list(kept_threads().idle)
    yield
    idle = kept_threads().idle
    for executor in [executor for executor in idle if executor not in before]:
        idle.remove(executor)
        executor.shutdown(wait=True)


@pytest.fixture
def database_log():
    keep = Keep()
    logger = logging.getLogger("squarescores.database")
    logger.addHandler(keep)
    yield keep.records
    logger.removeHandler(keep)


# --- The language ---------------------------------------------------------------------


def test_a_vietnamese_standings_page_is_pushed_vietnamese_rows_after_the_hand_over(
    loop,  # noqa: F811
    table,  # noqa: F811
    actor,
):
    """The first fragment is rendered inside Django's handler, with LocaleMiddleware's
    language active; the later ones by the wrapper's tasks, whose context never saw it
    (the language is a context variable, set in Django's `process_request` task). A
    Vietnamese phone's standings turn English at the first change, and the kept answer
    (`tracker.answers`, keyed by `get_language()`) is the English one."""
    session, players, token = table
    phone = Caller(
        f"/s/{token}/live/", b"show=standings", headers=((b"accept-language", b"vi"),)
    ).open(loop)
    soon(lambda: "data: " in phone.said)
    assert "sau 0 ván" in phone.said  # Django's part: in the phone's language
    heard = len(phone.said)

    version = file_a_deal(session, players, actor)
    soon(lambda: f"data: {version}\n\n" in phone.said[heard:])
    later = phone.said[heard:]
    phone.go_away(loop)
    phone.ends()

    assert "event: standings" in later
    assert "after 1 deal" not in later, "the pushed rows are English"
    assert "sau 1 ván" in later


def test_django_s_own_asgi_handler_keeps_the_phone_s_language_on_the_whole_stream(
    loop,  # noqa: F811
    table,  # noqa: F811
    actor,
):
    """The control: served by Django's ASGI handler alone (as before the change, and as
    Django's AsyncClient serves it), the whole stream runs in the task LocaleMiddleware's
    language was set in, and the later fragment is Vietnamese too."""
    session, players, token = table

    class ByDjangoAlone(Caller):
        def open(self, loop: asyncio.AbstractEventLoop) -> ByDjangoAlone:  # noqa: F811
            self.call = asyncio.run_coroutine_threadsafe(
                django_application(self.scope, self.receive, self.send), loop
            )
            return self

    phone = ByDjangoAlone(
        f"/s/{token}/live/", b"show=standings", headers=((b"accept-language", b"vi"),)
    ).open(loop)
    soon(lambda: "data: " in phone.said)
    assert "sau 0 ván" in phone.said
    heard = len(phone.said)

    version = file_a_deal(session, players, actor)
    soon(lambda: f"data: {version}\n\n" in phone.said[heard:])
    later = phone.said[heard:]
    phone.go_away(loop)
    phone.ends()

    assert "sau 1 ván" in later
    nothing_left(loop)


def test_django_s_async_client_streams_the_whole_stream_itself(
    loop,  # noqa: F811
    table,  # noqa: F811
    actor,
):
    """Django's test client (no wrapper, no hand-over): the stream's first events and its
    next change, read in the one task that asked."""
    session, players, token = table

    def filed_from_a_thread() -> int:
        try:
            return file_a_deal(session, players, actor)
        finally:
            connection.close()  # the thread's own: the test database is dropped after

    async def watching() -> tuple[int, str, str]:
        response = await AsyncClient().get(f"/s/{token}/live/", {"show": "standings"})
        stream = aiter(response.streaming_content)
        first = (await anext(stream)).decode()
        version = await asyncio.to_thread(filed_from_a_thread)
        later = ""
        async with asyncio.timeout(10):
            while f"data: {version}\n\n" not in later:
                later += (await anext(stream)).decode()
        # Hung up as tests/views/test_live_push.py does: the view's own iterator (closing
        # Django's wrappers leaves it to the collector).
        await response._iterator.aclose()
        return response.status_code, first, later

    status, first, later = asyncio.run_coroutine_threadsafe(watching(), loop).result(15)
    assert status == 200
    assert first.startswith("retry: ")
    assert "after 0 deals" in first
    assert "after 1 deal" in later
    nothing_left(loop)


# --- Phones that go away early --------------------------------------------------------


def test_a_phone_gone_before_its_request_came_leaves_nothing(loop, table):  # noqa: F811
    _, _, token = table

    class GoneAtOnce(Phone):
        async def receive(self) -> dict[str, Any]:
            return {"type": "http.disconnect"}

    phone = GoneAtOnce(f"/s/{token}/live/").open(loop)
    phone.ends()

    assert phone.sent == []
    nothing_left(loop)


def test_a_phone_gone_while_the_view_opens_leaves_nothing(loop, table, monkeypatch):  # noqa: F811
    _, _, token = table
    opening, release, done = threading.Event(), threading.Event(), threading.Event()
    opened = live_view._opening

    def slow_opening(*args, **kwargs):
        opening.set()
        release.wait(10)
        try:
            return opened(*args, **kwargs)
        finally:
            done.set()

    monkeypatch.setattr(live_view, "_opening", slow_opening)
    phone = Phone(f"/s/{token}/live/").open(loop)
    assert opening.wait(10)
    phone.go_away(loop)
    release.set()
    phone.ends()
    assert done.wait(10)  # the view's thread has let go of its connection too

    assert phone.sent == []  # Django cancelled the view: nothing to answer, nothing handed
    nothing_left(loop)


def test_a_phone_gone_while_django_sends_the_first_events_leaves_nothing(loop, table):  # noqa: F811
    """The first events' send never returns (the phone's socket is stuck); the phone goes
    away: Django cancels its send, closes the view's iterator before it handed anything."""
    _, _, token = table

    class Stuck(Phone):
        async def send(self, message: dict[str, Any]) -> None:
            self.sent.append(message)
            if message.get("body"):
                await asyncio.Event().wait()  # until cancelled

    phone = Stuck(f"/s/{token}/live/").open(loop)
    soon(lambda: "data: " in phone.said)
    phone.go_away(loop)
    phone.ends()

    assert finals(phone) == 0
    nothing_left(loop)


def test_a_phone_gone_just_as_django_handed_over_leaves_nothing(loop, table):  # noqa: F811
    """The phone goes away in the very send of its first events: Django's listener and
    the wrapper's both see it, and the stream's rest stops before it waits."""
    _, _, token = table

    class GoesAfterFirst(Phone):
        async def send(self, message: dict[str, Any]) -> None:
            self.sent.append(message)
            if message.get("body"):
                self.gone.set()

    phone = GoesAfterFirst(f"/s/{token}/live/").open(loop)
    phone.ends()

    assert phone.status == 200
    assert finals(phone) == 0
    nothing_left(loop)


# --- Streams that end mid-way ---------------------------------------------------------


@pytest.mark.parametrize("query", [b"", b"show=standings"])
def test_a_revoked_link_s_handed_over_stream_ends_once_and_logs_once(
    loop,  # noqa: F811
    table,  # noqa: F811
    actor,
    request_log,
    query,
):
    session, _, token = table
    link = session.share_links.get(token=token)
    phone = Phone(f"/s/{token}/live/", query).open(loop)
    soon(lambda: "data: " in phone.said)
    heard = phone.said

    share_link_revoke(link_id=link.pk, actor=actor)
    phone.ends(within=10)

    assert phone.said == heard, "a revoked link heard more"
    assert finals(phone) == 1
    assert [record.getMessage() for record in request_log] == ["GET /s/<token>/live/ 200"]
    nothing_left(loop)


def test_a_stream_whose_time_is_up_ends_with_one_final_message(loop, table, monkeypatch):  # noqa: F811
    _, _, token = table
    monkeypatch.setattr(live_view, "STREAM_FOR", 0.3)
    phone = Phone(f"/s/{token}/live/").open(loop)

    phone.ends()

    assert finals(phone) == 1
    assert phone.sent[-1] == {"type": "http.response.body", "body": b"", "more_body": False}
    nothing_left(loop)


def test_a_database_error_in_a_later_look_ends_the_stream_and_hides_the_token(
    loop,  # noqa: F811
    table,  # noqa: F811
    actor,
    monkeypatch,
    database_log,
):
    """The log line of `_ended_for` reads the stripped request's resolver match."""
    session, players, token = table
    phone = Phone(f"/s/{token}/live/", b"show=standings").open(loop)
    soon(lambda: "data: " in phone.said)

    def down(*args, **kwargs):
        raise OperationalError("connection refused")

    monkeypatch.setattr(live_view, "reach", down)
    file_a_deal(session, players, actor)  # the rows moved: the stream reads the link again
    phone.ends()

    assert finals(phone) == 1
    messages = [record.getMessage() for record in database_log]
    assert len(messages) == 1, messages
    assert "/s/<token>/live/" in messages[0]
    assert token not in messages[0]
    nothing_left(loop)


def test_an_error_in_the_stream_s_rest_reaches_the_server_and_lets_go_of_the_hub(
    loop,  # noqa: F811
    table,  # noqa: F811
    actor,
    monkeypatch,
    request_log,
):
    session, players, token = table
    phone = Phone(f"/s/{token}/live/").open(loop)
    soon(lambda: "data: " in phone.said)

    def broken(self, now):
        raise RuntimeError("broken look")

    monkeypatch.setattr(live_view._Follower, "told", broken)
    deal = session.deals.get()
    deal_tap(deal_id=deal.pk, player_id=players["Alice"].pk, actor=actor)

    with pytest.raises(RuntimeError, match="broken look"):
        phone.ends()
    assert finals(phone) == 0  # uvicorn closes the connection, as for any application
    assert len(request_log) == 1
    nothing_left(loop)


# --- The stripped request's later looks -----------------------------------------------


def test_members_signed_in_by_cookie_are_read_again_after_the_hand_over(
    loop,  # noqa: F811
    make_session,
    actor,
    user,
    django_user_model,
):
    """A look after the hand-over calls `get_user(request)` on the stripped request: the
    owner stays and hears on, a removed member and a deactivated account end."""
    session, players = make_session()
    friend = django_user_model.objects.create_user(username="binh", password="binh-pass-123")
    other = django_user_model.objects.create_user(username="chi", password="chi-pass-123")
    for account in (friend, other):
        session.circle.members.add(account)

    def signed_in(account) -> tuple[tuple[bytes, bytes], ...]:
        client = Client()
        client.force_login(account)
        value = client.cookies[settings.SESSION_COOKIE_NAME].value
        return ((b"cookie", f"{settings.SESSION_COOKIE_NAME}={value}".encode()),)

    path = f"/sessions/{session.pk}/live/"
    staying = Caller(path, headers=signed_in(user)).open(loop)
    removed = Caller(path, headers=signed_in(friend)).open(loop)
    deactivated = Caller(path, b"show=standings", headers=signed_in(other)).open(loop)
    for phone in (staying, removed, deactivated):
        soon(lambda phone=phone: "data: " in phone.said)
        assert phone.status == 200

    member_remove(circle=session.circle, user_id=friend.pk, actor=actor)
    other.is_active = False
    other.save()
    removed.ends()
    deactivated.ends()
    heard = len(staying.said)
    version = file_a_deal(session, players, actor)
    soon(lambda: f"data: {version}\n\n" in staying.said[heard:])

    assert (finals(removed), finals(deactivated)) == (1, 1)
    assert not staying.ended
    staying.go_away(loop)
    staying.ends()
    nothing_left(loop)


def test_a_later_standings_fragment_renders_from_the_stripped_request(
    loop,  # noqa: F811
    table,  # noqa: F811
    actor,
):
    """No messages, no body, no tried patterns: the template and its context processors
    still render (the `messages` processor reads none)."""
    session, players, token = table
    phone = Phone(f"/s/{token}/live/", b"show=standings").open(loop)
    soon(lambda: "data: " in phone.said)
    heard = len(phone.said)

    version = file_a_deal(session, players, actor)
    soon(lambda: f"data: {version}\n\n" in phone.said[heard:])
    later = phone.said[heard:]
    phone.go_away(loop)
    phone.ends()

    assert "event: standings" in later
    assert "after 1 deal" in later
    assert f'data-version="{version}"' in later
    nothing_left(loop)


def test_a_later_fragment_under_a_root_path_keeps_the_script_prefix(
    loop,  # noqa: F811
    table,  # noqa: F811
    actor,
):
    """Served under a root path (uvicorn's --root-path), the links of a fragment pushed
    after the hand-over keep the prefix: Django's handler sets it in the task the wrapper
    runs in, not in a task of its own (unlike the language)."""
    session, players, token = table
    phone = Phone(f"/app/s/{token}/live/", b"show=standings")
    phone.scope["root_path"] = "/app"
    phone.open(loop)
    soon(lambda: "data: " in phone.said)
    assert f'data-live="/app/s/{token}/live/' in phone.said
    heard = len(phone.said)

    version = file_a_deal(session, players, actor)
    soon(lambda: f"data: {version}\n\n" in phone.said[heard:])
    later = phone.said[heard:]
    phone.go_away(loop)
    phone.ends()

    assert "event: standings" in later
    assert f'data-live="/app/s/{token}/live/' in later
    nothing_left(loop)


def test_the_request_s_thread_comes_back_only_once_django_s_handler_returned(
    loop,  # noqa: F811
    table,  # noqa: F811
    monkeypatch,
):
    """The phone hears its first events before Django's handler has returned and
    `KeptThreads` took the request's executor back: a check of `kept_threads().idle` as
    soon as the first event is heard (tests/production/test_asgi_streams.py,
    `test_a_stream_is_answered_through_django_then_goes_on_outside_it`) races with it,
    and fails when no executor was idle before (about one run in six of that file alone
    on SQLite). Widened here by holding the hand-over."""
    _, _, token = table
    before = len(kept_threads().idle)
    holding, release = threading.Event(), threading.Event()
    answered = live_view._Follower.answered

    def held(self):
        holding.set()
        release.wait(10)
        answered(self)

    monkeypatch.setattr(live_view._Follower, "answered", held)
    phone = Phone(f"/s/{token}/live/").open(loop)
    assert holding.wait(10)
    soon(lambda: "data: " in phone.said)
    during = len(kept_threads().idle)
    release.set()
    soon(lambda: len(kept_threads().idle) == max(before, 1))
    phone.go_away(loop)
    phone.ends()

    assert during == max(before - 1, 0)  # heard, and the thread not back yet
    nothing_left(loop)


# --- Requests to /live/ that are not a stream's ---------------------------------------


def test_a_get_with_a_body_in_chunks_streams_and_ends_when_the_phone_goes(loop, table):  # noqa: F811
    _, _, token = table
    phone = Caller(
        f"/s/{token}/live/", headers=((b"content-length", b"5"),), body=(b"he", b"llo")
    ).open(loop)
    soon(lambda: "data: " in phone.said)

    assert phone.status == 200
    soon(lambda: watchers(loop) != {})  # once Django's handler has returned
    phone.go_away(loop)
    phone.ends()
    nothing_left(loop)


@pytest.mark.parametrize(
    ("method", "path", "status"),
    [
        ("HEAD", "/s/{token}/live/", 405),
        ("POST", "/s/{token}/live/", 403),  # CSRF, before the view
        ("GET", "/s/{nonsense}/live/", 404),
        ("GET", "/nowhere/live/", 404),
        ("GET", "/admin/live/", 302),  # the admin's sign-in redirect
    ],
)
def test_answers_to_live_paths_that_are_not_streams_pass_whole(
    loop,  # noqa: F811
    table,  # noqa: F811
    method,
    path,
    status,
):
    _, _, token = table
    phone = Caller(path.format(token=token, nonsense="x" * 43), method=method).open(loop)

    phone.ends()

    assert phone.status == status
    assert finals(phone) == 1
    assert phone.sent[-1]["type"] == "http.response.body"
    assert changes.HANDED_OVER not in phone.scope
    nothing_left(loop)


# --- The paths that hand nothing over -------------------------------------------------


def test_the_wsgi_stream_is_as_it_was(table):  # noqa: F811
    _, _, token = table
    response = Client().get(f"/s/{token}/live/")

    first = next(iter(response.streaming_content)).decode()
    response._iterator.close()  # as tests/views/test_live_push.py hangs up
    assert response.status_code == 200
    assert response["Content-Type"] == "text/event-stream"
    assert first.startswith("retry: ")
    assert "data: " in first


def test_the_hub_s_wait_times_out_and_is_cancelled_without_a_task_of_its_own(loop):  # noqa: F811
    async def trying() -> tuple[object, int, bool]:
        hub = changes.Hub()
        before = len(asyncio.all_tasks())
        timed_out = await hub.wait(1, 0, 0.05)
        waiting = asyncio.create_task(hub.wait(1, 0, 30))
        await asyncio.sleep(0.05)
        during = len(asyncio.all_tasks()) - before  # the waiting task alone
        waiting.cancel()
        try:
            await waiting
        except asyncio.CancelledError:
            cancelled = True
        else:
            cancelled = False
        return timed_out, during, cancelled

    timed_out, during, cancelled = asyncio.run_coroutine_threadsafe(trying(), loop).result(5)
    assert timed_out is None
    assert during == 1
    assert cancelled


# --- Through uvicorn, as `make run` serves ----------------------------------------------


class Served:
    """`tracker.asgi.application` behind uvicorn (httptools, as `make run`), in a thread."""

    def __init__(self) -> None:
        import uvicorn

        self.port = free_port()
        self.loops: list[asyncio.AbstractEventLoop] = []

        async def app(scope, receive, send):
            if not self.loops:
                self.loops.append(asyncio.get_running_loop())
            await application(scope, receive, send)

        config = uvicorn.Config(
            app,
            host="127.0.0.1",
            port=self.port,
            lifespan="off",
            http="httptools",
            loop="asyncio",
            log_level="warning",
        )
        self.server = uvicorn.Server(config)
        self.thread = threading.Thread(target=self.server.run, daemon=True)

    def __enter__(self) -> Served:
        self.thread.start()
        soon(lambda: self.server.started)
        return self

    def __exit__(self, *exc: object) -> None:
        # Gracefully, once the test's connections are closed: each request's end runs
        # (`request_finished` closes its thread's database connection).
        self.server.should_exit = True
        self.thread.join(10)
        assert not self.thread.is_alive(), "uvicorn did not stop"

    @property
    def loop(self) -> asyncio.AbstractEventLoop:
        return self.loops[0]

    def connect(self) -> socket.socket:
        return socket.create_connection(("127.0.0.1", self.port), timeout=5)


def asking(path: str, method: str = "GET") -> bytes:
    return f"{method} {path} HTTP/1.1\r\nHost: testserver\r\n\r\n".encode()


def read_until(sock: socket.socket, ending: bytes, received: bytes = b"") -> bytes:
    deadline = time.monotonic() + 10
    while ending not in received:
        assert time.monotonic() < deadline, received
        chunk = sock.recv(65536)
        assert chunk, ("closed", received)
        received += chunk
    return received


def test_through_uvicorn_a_stream_ends_once_and_its_connection_serves_the_next_request(
    table,  # noqa: F811
    monkeypatch,
    request_log,
):
    _, _, token = table
    monkeypatch.setattr(live_view, "STREAM_FOR", 0.3)
    with Served() as served, served.connect() as sock:
        sock.sendall(asking(f"/s/{token}/live/"))
        stream = read_until(sock, b"\r\n0\r\n\r\n")
        sock.sendall(asking("/healthz"))
        after = read_until(sock, b"\r\n\r\n", stream.partition(b"\r\n0\r\n\r\n")[2])

    head, _, body = stream.partition(b"\r\n\r\n")
    assert head.startswith(b"HTTP/1.1 200"), head
    assert b"transfer-encoding: chunked" in head.lower()
    assert body.count(b"\r\n0\r\n\r\n") == 1
    assert b"retry: " in body
    assert after.startswith(b"HTTP/1.1 200"), after  # the kept-alive connection, clean
    assert [record.getMessage() for record in request_log] == [
        "GET /s/<token>/live/ 200",
        "GET /healthz 200",
    ]


def test_through_uvicorn_a_phone_that_hangs_up_lets_go_of_the_hub(table):  # noqa: F811
    _, _, token = table
    with Served() as served:
        with served.connect() as sock:
            sock.sendall(asking(f"/s/{token}/live/?show=standings"))
            read_until(sock, b"data: ")
            soon(lambda: watchers(served.loop) != {})
        soon(lambda: watchers(served.loop) == {}, within=5)
        soon(lambda: tasks_left(served.loop) == [], within=5)
        # The server serves on.
        with served.connect() as sock:
            sock.sendall(asking("/healthz"))
            assert read_until(sock, b"\r\n\r\n").startswith(b"HTTP/1.1 200")


def test_through_uvicorn_a_head_to_a_stream_is_answered_whole(table):  # noqa: F811
    _, _, token = table
    with Served() as served, served.connect() as sock:
        sock.sendall(asking(f"/s/{token}/live/", "HEAD"))
        head = read_until(sock, b"\r\n\r\n")
        sock.sendall(asking("/healthz"))
        after = read_until(sock, b"\r\n\r\n", head.partition(b"\r\n\r\n")[2])

    assert head.startswith(b"HTTP/1.1 405"), head
    assert after.startswith(b"HTTP/1.1 200"), after
