"""What one open live stream holds in a server process: `tracker.asgi.application` (as
`make serve` runs it) in this process, on a fresh PostgreSQL database, with N standings
pages on their streams at once. Prints, per open stream, the objects the garbage
collector tracks (what a full collection walks, and what the 1,000-table tail is made
of: docs/performance.md, session 15), the memory allocated, the threads held, and the
types that grew most.

    .venv/bin/python bench/streams.py [--streams 300] [--top 15]
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import sys
import threading
import tracemalloc
from collections import Counter
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.common import reset_database, setup_django  # noqa: E402


def census() -> Counter[str]:
    gc.collect()
    return Counter(type(thing).__qualname__ for thing in gc.get_objects())


class Phone:
    """One standings page on its stream: the ASGI messages of a GET that sends no body,
    and stays until told to go."""

    def __init__(self, path: str, query: bytes) -> None:
        self.scope: dict[str, Any] = {
            "type": "http",
            "asgi": {"version": "3.0"},
            "http_version": "1.1",
            "method": "GET",
            "scheme": "http",
            "path": path,
            "raw_path": path.encode(),
            "root_path": "",
            "query_string": query,
            "headers": [(b"host", b"127.0.0.1")],
            "client": ("127.0.0.1", 40000),
            "server": ("127.0.0.1", 8000),
        }
        self.heard = asyncio.Event()
        self.gone = asyncio.Event()
        self.status = 0
        self.asked = False

    async def receive(self) -> dict[str, Any]:
        if not self.asked:
            self.asked = True
            return {"type": "http.request", "body": b"", "more_body": False}
        await self.gone.wait()
        return {"type": "http.disconnect"}

    async def send(self, message: dict[str, Any]) -> None:
        if message["type"] == "http.response.start":
            self.status = message["status"]
        elif message.get("body"):
            self.heard.set()


async def holding(app: Any, path: str, query: bytes, count: int) -> tuple[int, Counter[str], int]:
    """Open `count` streams and, once each heard its first event, what they hold: the
    tracked objects by type, the bytes allocated, the threads; then let them go."""
    warm = Phone(path, query)
    task = asyncio.create_task(app(warm.scope, warm.receive, warm.send))
    await asyncio.wait_for(warm.heard.wait(), 30)
    before, threads_before = census(), threading.active_count()
    tracemalloc.start()
    start_bytes, _ = tracemalloc.get_traced_memory()
    phones = [Phone(path, query) for _ in range(count)]
    tasks = [asyncio.create_task(app(phone.scope, phone.receive, phone.send)) for phone in phones]
    await asyncio.wait_for(asyncio.gather(*(phone.heard.wait() for phone in phones)), 60)
    await asyncio.sleep(0.2)  # whatever the answers left behind settles
    after = census()
    held_bytes = tracemalloc.get_traced_memory()[0] - start_bytes
    tracemalloc.stop()
    threads = threading.active_count() - threads_before
    assert {phone.status for phone in phones} == {200}, {phone.status for phone in phones}
    for phone in [warm, *phones]:
        phone.gone.set()
    await asyncio.wait_for(asyncio.gather(task, *tasks), 30)
    grown = after.copy()
    grown.subtract(before)
    return held_bytes, grown, threads


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--streams", type=int, default=300)
    parser.add_argument("--top", type=int, default=15)
    args = parser.parse_args()

    reset_database()
    setup_django()
    from bench.capacity import make_tables
    from tracker.asgi import application

    (table,) = make_tables(1)
    path = f"/s/{table.viewer}/live/"

    async def measure() -> None:
        count = args.streams
        held_bytes, grown, threads = await holding(application, path, b"show=standings", count)
        objects = sum(grown.values())
        print(f"{count} standings pages on their live streams, at once, in one process")
        print(f"  tracked objects a stream: {objects / count:.0f}")
        print(f"  memory allocated a stream: {held_bytes / count / 1024:.1f} KB")
        print(f"  threads held: {threads}")
        print("  the types that grew most, a stream:")
        for name, grew in grown.most_common(args.top):
            print(f"    {grew / count:6.1f}  {name}")

    asyncio.run(measure())


if __name__ == "__main__":
    main()
