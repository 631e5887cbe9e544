"""ASGI entry point (`make serve`): Django's application behind `BodyLimit`, the live
streams' waiting parts served by `StreamsHandedOver`, each request's synchronous code on
a thread `KeptThreads` keeps."""

from __future__ import annotations

import asyncio
import io
import os
import time
import warnings
from collections.abc import AsyncIterator, Awaitable, Callable, MutableMapping
from concurrent.futures import Future, ThreadPoolExecutor
from typing import Any

from asgiref.sync import ThreadSensitiveContext
from django.core.asgi import get_asgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "tracker.settings")

django_application = get_asgi_application()

from django.conf import settings  # noqa: E402  (settings are set up above)
from django.core.handlers.asgi import ASGIRequest  # noqa: E402
from django.urls import get_resolver  # noqa: E402
from django.utils import translation  # noqa: E402

from tracker.live import HANDED_OVER  # noqa: E402
from tracker.middleware import body_too_large, log_request  # noqa: E402

# WhiteNoise answers a static file with a file iterator, which Django's ASGI handler reads
# whole in a thread, warning at the first file a process serves. Ours are small (the
# largest, htmx, is 51 KB; 169 KB unminified in development), so reading them whole is
# right, and the warning says nothing to act on.
warnings.filterwarnings(
    "ignore",
    message="StreamingHttpResponse must consume synchronous iterators",
    category=Warning,
    module="django.core.handlers.asgi",
)

Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
App = Callable[..., Awaitable[None]]


class BodyLimit:
    """Take in no more of a request's body than `DATA_UPLOAD_MAX_MEMORY_SIZE` bytes.

    Django's ASGI handler receives the whole body (into a temporary file past 64 KB)
    before any middleware runs, so `RequestBodyLimitMiddleware`'s 413 came only after a
    50 MB sign-in had been taken in and written to disk. A body whose Content-Length is
    over the limit is not read at all: Django is handed an empty one with the headers as
    sent, and the middleware answers 413 as under WSGI (in the reader's language, JSON
    under /api/, logged). A body sent without a length (chunked) is counted as it comes;
    past the limit Django is told the client went away, and the 413 is answered here (in
    the reader's language too, and logged).

    Written here because neither uvicorn nor Django has a body size limit of its own
    under ASGI.
    """

    def __init__(self, app: App) -> None:
        self.app = app

    async def __call__(self, scope: MutableMapping[str, Any], receive: Receive, send: Send) -> None:
        most = settings.DATA_UPLOAD_MAX_MEMORY_SIZE
        if scope["type"] != "http" or most is None:
            await self.app(scope, receive, send)
            return
        declared = _content_length(scope)
        if declared is not None and declared > most:
            await self.app(scope, _empty_body(), send)
        elif declared is None:
            started = time.perf_counter()
            counted = _Counted(receive, most)
            await self.app(scope, counted, send)
            if counted.over:
                # Django gave up on the request before its middleware ran: answered here
                # in the reader's language (their cookie or browser's) and logged as the
                # middleware would.
                request = ASGIRequest(scope, io.BytesIO())
                with translation.override(translation.get_language_from_request(request)):
                    response = body_too_large(scope["path"], most, close=True)
                await _answer(response, send)
                log_request(request, response, started)
        else:  # the server reads no more than the length declared
            await self.app(scope, receive, send)


def _content_length(scope: MutableMapping[str, Any]) -> int | None:
    for name, value in scope.get("headers", ()):
        if name.lower() == b"content-length":
            try:
                return int(value)
            except ValueError:
                return 0  # Django reads a malformed length as no body, and so do we
    return None


def _empty_body() -> Receive:
    given = False

    async def receive() -> Message:
        nonlocal given
        if not given:
            given = True
            return {"type": "http.request", "body": b"", "more_body": False}
        # Django then listens for the client going away while it answers; reading on would
        # take in the body. The listener is cancelled once the answer is sent.
        await asyncio.Future()
        raise AssertionError("unreachable")

    return receive


class _Counted:
    """The client's messages, until its body passes `most` bytes: then it "went away"."""

    def __init__(self, receive: Receive, most: int) -> None:
        self.receive = receive
        self.most = most
        self.taken = 0
        self.over = False

    async def __call__(self) -> Message:
        if self.over:
            return {"type": "http.disconnect"}
        message = await self.receive()
        if message["type"] == "http.request":
            self.taken += len(message.get("body", b""))
            if self.taken > self.most:
                self.over = True
                return {"type": "http.disconnect"}
        return message


async def _answer(response: Any, send: Send) -> None:
    headers = [(name.encode(), value.encode()) for name, value in response.items()]
    await send({"type": "http.response.start", "status": response.status_code, "headers": headers})
    await send({"type": "http.response.body", "body": response.content})


class _OneThread(ThreadPoolExecutor):
    """A one-thread executor that knows whether a call given to it is not yet done."""

    def __init__(self) -> None:
        super().__init__(max_workers=1, thread_name_prefix="request")
        # Each call until it is done (or cancelled before it started): not only the last
        # one, since a call queued behind one still running may be cancelled first. A done
        # call's future (and the answer it holds) is not kept.
        self._pending: set[Future[Any]] = set()

    def submit(self, fn: Callable[..., Any], /, *args: Any, **kwargs: Any) -> Future[Any]:
        future = super().submit(fn, *args, **kwargs)
        self._pending.add(future)
        future.add_done_callback(self._pending.discard)
        return future

    @property
    def busy(self) -> bool:
        return bool(self._pending)


class KeptThreads:
    """Each request's synchronous code (the middleware, the view) on a thread kept from
    one request to the next, instead of a thread started for each and joined after it.

    Django's ASGI handler gives each request a `ThreadSensitiveContext` of its own, so
    asgiref makes a one-thread executor for every request, starts its thread at the first
    synchronous call and shuts it down (joining the thread, from yet another thread) once
    the answer is sent. Under load a worker spent about a sixth of its time starting and
    joining threads (docs/performance.md). asgiref lets a caller hand the context its own
    executor, which it keeps after the block; Django's context inside then uses that one.

    Executors wait here between requests: one per request at once (a streaming answer
    holds its own until it ends), at most `KEEP` idle. One with a call not yet done when
    its request ends is not handed on, so that no request waits behind another's call: it
    is shut down without waiting, and its thread ends once the call returns. Django's
    handler waits for the view even when the phone goes away (the middleware chain is one
    call into the thread, `RequestBodyLimitMiddleware` last), so this is a safety net for
    a call left behind, not a path a request takes today.

    As with a WSGI server's threads, a thread serves one request at a time, and what
    Django keeps per thread (the database connection) is closed at each request's end as
    before. Written here because neither Django nor uvicorn keeps these threads.
    """

    KEEP = 64

    def __init__(self, app: App) -> None:
        self.app = app
        self.idle: list[_OneThread] = []

    async def __call__(self, scope: MutableMapping[str, Any], receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        executor = self.idle.pop() if self.idle else _OneThread()
        try:
            async with ThreadSensitiveContext(executor=executor):
                await self.app(scope, receive, send)
        finally:
            if executor.busy or len(self.idle) >= self.KEEP:
                executor.shutdown(wait=False)
            else:
                self.idle.append(executor)


class StreamsHandedOver:
    """A live stream's waiting part, served here once Django's handler has let its
    request go.

    A phone on a live stream (`tracker.views.live`) holds it for minutes. Served whole by
    Django's handler, a stream kept all of its request that long: the handler's tasks and
    coroutines, the middleware chain's contexts, the request's thread (`KeptThreads`),
    some 240 objects the collector tracks. At 1,000 tables a worker holds 600 streams,
    and each full collection walked all of them while a tap waited (docs/performance.md,
    session 15). So the view answers the stream's first events through Django, as any
    request (the one door: the middleware, the access checks, the log line), and hands
    the rest to this wrapper in the scope (`tracker.live.HANDED_OVER`). Django ends its
    answer; the wrapper keeps the connection open (Django's last, empty message is not
    passed on), and once Django's handler has returned, sends the rest of the stream
    itself until it ends or the phone goes away.

    Written here because Django's handler keeps every request until its answer's last
    byte, and neither Django nor uvicorn serves a stream outside it.
    """

    def __init__(self, app: App) -> None:
        self.app = app

    async def __call__(self, scope: MutableMapping[str, Any], receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or not scope["path"].endswith("/live/"):
            await self.app(scope, receive, send)
            return
        handed: list[AsyncIterator[str]] = []
        scope[HANDED_OVER] = handed

        async def sending(message: Message) -> None:
            if handed and message["type"] == "http.response.body" and not message.get("more_body"):
                if message.get("body"):
                    await send({**message, "more_body": True})
                return  # the answer goes on: its rest is served below
            await send(message)

        await self.app(scope, receive, sending)
        del scope[HANDED_OVER]
        if handed:
            await _pass_on(handed.pop(), receive, send)


async def _pass_on(rest: AsyncIterator[str], receive: Receive, send: Send) -> None:
    """Send `rest`'s events until they end (then the answer's end), or until the phone
    goes away (then they stop at once), as Django's handler sends a streaming answer."""

    async def sending() -> None:
        async for said in rest:
            await send({"type": "http.response.body", "body": said.encode(), "more_body": True})
        await send({"type": "http.response.body", "body": b"", "more_body": False})

    async def gone() -> None:
        while (await receive())["type"] != "http.disconnect":
            pass  # nothing else comes on a GET whose body Django has read

    tasks = [asyncio.create_task(sending()), asyncio.create_task(gone())]
    try:
        await asyncio.wait(tasks, return_when=asyncio.FIRST_COMPLETED)
    finally:
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        await rest.aclose()  # ends the stream's watching when it stopped between events
    streamed = tasks[0]
    if not streamed.cancelled() and (error := streamed.exception()) is not None:
        raise error  # uvicorn logs it and closes the connection, as for any application


# The URLconf, and with it every view, DRF and the API's serializers, loaded as the
# process starts rather than by its first request: half a second of imports on this
# 2-core box, under the import lock, which held every request a new worker took in its
# first second (taps of 0.5-2 s at 1,000 tables; docs/performance.md, session 20).
get_resolver().url_patterns  # noqa: B018  (read for its imports)

application = BodyLimit(StreamsHandedOver(KeptThreads(django_application)))
