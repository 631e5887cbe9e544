"""Capacity: N tables playing at once against the app as `make serve` runs it.

    .venv/bin/python bench/capacity.py [--tables 100,300,1000] [--seconds 60]
                                       [--watch stream|push|poll] [--workers 0]

Each table has one scorer tapping a player out every 20 seconds (through the API, with
the table's scorer link; three taps file a deal and the next one opens; each table starts
somewhere in its deal, so a third of the taps file, as at real tables) and three phones
watching: two with the standings open, and the scorer's own tap screen. With
`--watch stream` (what the pages do) each phone listens to the session's live stream and
the standings fetch their fragment when a newer version is announced; with
`--watch poll` (what they did before) each phone asks every 1.5 s, and an unchanged
session answers 204; with `--watch push` (what the standings page does since session 4)
the standings' stream sends the fragment itself when a tap moved its rows, and the
standings phones make no requests at all. With `--watch none` the scorers tap and nobody
watches: what the taps cost alone, beside what their watchers add.

For each N it reports the tap's latency (and its median and p99 in each 10 s of play:
rising means a queue that grows), how stale the standings were (from the moment a tap
was sent to the moment a watcher holds a fragment showing it), the requests the
watchers made, and the CPU used by the server, by PostgreSQL, by this load generator
(an asyncio client, httpx on uvloop) and by the whole machine (/proc/stat), as shares of
one core, with the machine's CPU time for each tap (its watchers' work included).
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import os
import random
import re
import resource
import secrets
import ssl
import statistics
import sys
import time
from collections import defaultdict
from collections.abc import Coroutine, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
import uvloop

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.common import (  # noqa: E402  (the path above first)
    HOST,
    PLAYERS,
    cpu_seconds,
    machine_busy_seconds,
    percentile,
    postgres_pids,
    process_tree,
    reset_database,
    resident_mb,
    serving,
    setup_django,
)

PORT = 8766
TAP_EVERY = 20.0
POLL_EVERY = 1.5
RETRY = 1.5  # seconds: the stream's `retry`, what a page waits before it listens again
OPEN_PER_SECOND = 200  # phones that open the page each second while the tables fill
VERSION = re.compile(rb'data-version="(\d+)"')


@dataclass
class Table:
    session: int
    deal: int
    players: list[int]
    scorer: str
    viewer: str
    start_version: int
    already_out: int = 0  # players out of the first deal before the play began
    sent: list[float] = field(default_factory=list)  # when each tap was sent


@dataclass
class Figures:
    opened: int = 0  # streams (or pollers) that have started
    taps: list[float] = field(default_factory=list)
    tapped_at: list[float] = field(default_factory=list)  # when each tap was answered
    stale: list[float] = field(default_factory=list)
    fetches: int = 0
    playing: float = 0.0  # when the scorers began
    errors: dict[str, int] = field(default_factory=lambda: defaultdict(int))


def make_tables(count: int) -> list[Table]:
    """`count` sessions of four, each with a scorer and a viewer link, by the app's own
    services."""
    from django.contrib.auth import get_user_model

    from tracker.access import Actor
    from tracker.models import Session
    from tracker.services import circle_create, deal_tap, session_create, share_link_create

    user = get_user_model().objects.create_user(f"bench-{secrets.token_hex(3)}", password="x")
    actor = Actor(user=user)
    tables = []
    for number in range(count):
        if number % 100 == 0:  # a circle holds at most 500 players
            circle = circle_create(owner=user, name=f"Bench {count}.{number // 100}")
        names = [f"{name} {number}" for name in PLAYERS]
        session = session_create(circle=circle, name=f"Table {number}", players=names, actor=actor)
        scorer = share_link_create(session_id=session.pk, role="scorer", actor=actor)
        viewer = share_link_create(session_id=session.pk, role="viewer", actor=actor)
        seats = list(session.seats.order_by("position").values_list("player_id", flat=True))
        deal = session.deals.get().pk
        # Each table is somewhere in its deal, as real tables are: begun together, every
        # table's third tap (the one that files) would fall in the same 20 s, a storm of
        # filings every minute that only a bench makes.
        already_out = number % 3
        for player in seats[:already_out]:
            deal_tap(deal_id=deal, player_id=player, actor=actor)
        tables.append(
            Table(
                session=session.pk,
                deal=deal,
                players=seats,
                already_out=already_out,
                scorer=scorer.token,
                viewer=viewer.token,
                start_version=Session.objects.get(pk=session.pk).version,
            )
        )
    return tables


async def scorer(client: httpx.AsyncClient, table: Table, until: float, out: Figures) -> None:
    await asyncio.sleep(random.uniform(0, TAP_EVERY))
    headers = {"Authorization": f"Share {table.scorer}"}
    out_this_deal, deals = table.already_out, 0
    while time.monotonic() < until:
        first = deals % 4  # each deal another finishing order
        player = (table.players[first:] + table.players[:first])[out_this_deal]
        table.sent.append(time.monotonic())
        started = time.perf_counter()
        try:
            response = await client.post(
                f"/api/deals/{table.deal}/taps/",
                json={"player": player},
                headers={**headers, "Idempotency-Key": secrets.token_hex(12)},
            )
        except httpx.HTTPError as error:
            out.errors[f"tap {type(error).__name__}"] += 1
            table.sent.pop()
            await asyncio.sleep(min(TAP_EVERY, max(0.0, until - time.monotonic())))
            continue
        out.taps.append(time.perf_counter() - started)
        out.tapped_at.append(time.monotonic())
        if response.status_code != 201:
            out.errors[f"tap {response.status_code}"] += 1
            table.sent.pop()
        else:
            out_this_deal += 1
            if out_this_deal == 3:
                table.deal, out_this_deal, deals = response.json()["next_deal"], 0, deals + 1
        # Not past the end: the CPU figures are shares of the time from the first tap to
        # the last, and a scorer sleeping its 20 s after the end would dilute them.
        await asyncio.sleep(min(TAP_EVERY, max(0.0, until - time.monotonic())))


def note_staleness(table: Table, shown_before: int, shown: int, out: Figures) -> None:
    """The taps a fragment of version `shown` newly shows: how long since each was sent."""
    now = time.monotonic()
    for tap in range(shown_before - table.start_version, shown - table.start_version):
        if 0 <= tap < len(table.sent):
            out.stale.append(now - table.sent[tap])


async def fetch_standings(client: httpx.AsyncClient, table: Table, shown: int, out: Figures) -> int:
    out.fetches += 1
    response = await client.get(
        f"/s/{table.viewer}/standings/",
        params={"version": str(shown)},
        headers={"HX-Request": "true"},
    )
    if response.status_code == 204:
        return shown
    if response.status_code != 200:
        out.errors[f"standings {response.status_code}"] += 1
        return shown
    found = VERSION.search(response.content)
    newer = int(found.group(1)) if found else shown
    note_staleness(table, shown, newer, out)
    return newer


async def standings_listening(
    client: httpx.AsyncClient, table: Table, until: float, out: Figures
) -> None:
    shown = table.start_version
    first = True
    while time.monotonic() < until:
        try:
            async with client.stream("GET", f"/s/{table.viewer}/live/") as stream:
                if stream.status_code != 200:
                    out.errors[f"stream {stream.status_code}"] += 1
                    await asyncio.sleep(RETRY)  # as the page does: poll, then listen again
                    continue
                async for line in stream.aiter_lines():
                    if first and line.startswith("data: "):
                        out.opened, first = out.opened + 1, False
                    if line.startswith("data: ") and int(line[6:]) > shown:
                        shown = await fetch_standings(client, table, shown, out)
                    if time.monotonic() >= until:
                        return
        except httpx.HTTPError as error:
            out.errors[f"stream {type(error).__name__}"] += 1
            await asyncio.sleep(1)


async def standings_pushed(
    client: httpx.AsyncClient, table: Table, until: float, out: Figures
) -> None:
    """The standings page on its stream: sent the fragment when rows moved, the version
    always; a version heard is a version shown (its rows came with it, or did not move)."""
    shown = table.start_version
    first = True
    seen = ""  # the rows this page shows; none at first, so the stream sends them
    while time.monotonic() < until:
        try:
            async with client.stream(
                "GET",
                f"/s/{table.viewer}/live/",
                params={"show": "standings", "seen": seen},
                headers={"Last-Event-ID": seen} if seen else {},
            ) as stream:
                if stream.status_code != 200:
                    out.errors[f"stream {stream.status_code}"] += 1
                    await asyncio.sleep(RETRY)
                    continue
                kind = None
                async for line in stream.aiter_lines():
                    if line.startswith("event: "):
                        kind = line[7:]
                    elif line.startswith("id: "):
                        seen = line[4:]
                    elif line.startswith("data: ") and kind is None:
                        if first:
                            out.opened, first = out.opened + 1, False
                        version = int(line[6:])
                        if version > shown:
                            note_staleness(table, shown, version, out)
                            shown = version
                    elif not line:
                        kind = None
                    if time.monotonic() >= until:
                        return
        except httpx.HTTPError as error:
            out.errors[f"stream {type(error).__name__}"] += 1
            await asyncio.sleep(1)


async def tap_screen_listening(
    client: httpx.AsyncClient, table: Table, until: float, out: Figures
) -> None:
    """The scorer's own screen: its taps' answers update it, so it only listens."""
    first = True
    while time.monotonic() < until:
        try:
            async with client.stream("GET", f"/s/{table.scorer}/live/") as stream:
                if stream.status_code != 200:
                    out.errors[f"stream {stream.status_code}"] += 1
                    await asyncio.sleep(RETRY)
                    continue
                async for line in stream.aiter_lines():
                    if first and line.startswith("data: "):
                        out.opened, first = out.opened + 1, False
                    if time.monotonic() >= until:
                        return
        except httpx.HTTPError:
            await asyncio.sleep(1)


async def standings_polling(
    client: httpx.AsyncClient, table: Table, until: float, out: Figures
) -> None:
    shown = table.start_version
    out.opened += 1
    await asyncio.sleep(random.uniform(0, POLL_EVERY))
    while time.monotonic() < until:
        try:
            shown = await fetch_standings(client, table, shown, out)
        except httpx.HTTPError as error:
            out.errors[f"standings {type(error).__name__}"] += 1
        await asyncio.sleep(POLL_EVERY)


async def tap_screen_polling(
    client: httpx.AsyncClient, table: Table, until: float, out: Figures
) -> None:
    out.opened += 1
    await asyncio.sleep(random.uniform(0, POLL_EVERY))
    while time.monotonic() < until:
        version = table.start_version + len(table.sent)
        out.fetches += 1
        try:
            await client.get(
                f"/s/{table.scorer}/", params={"seen": str(version)}, headers={"HX-Request": "true"}
            )
        except httpx.HTTPError as error:
            out.errors[f"tap screen {type(error).__name__}"] += 1
        await asyncio.sleep(POLL_EVERY)


def cpu_so_far(server_pid: int) -> tuple[float, float, float, float]:
    """CPU seconds used so far by the server, PostgreSQL, this generator and the machine."""
    return (
        cpu_seconds(process_tree(server_pid)),
        postgres_cpu(),
        own_cpu(),
        machine_busy_seconds(),
    )


@contextmanager
def collector_held() -> Iterator[None]:
    """The generator's own collector held still while it measures. With 3,000 phones open
    it holds some 700,000 objects, and each full collection stopped every phone at once
    for 0.5-0.7 s: a tap the server's log showed answered in 30 ms was timed at 600
    (docs/performance.md, session 15). Nothing it makes in a minute's play needs the
    collector; it runs again after."""
    gc.collect()
    gc.freeze()
    gc.disable()
    try:
        yield
    finally:
        gc.enable()
        gc.unfreeze()


async def play(
    tables: list[Table], seconds: float, watch: str, out: Figures, server_pid: int
) -> dict[str, float]:
    """Open every watcher first (a stream counts once its first event came), then play
    for `seconds`, measuring CPU over the playing only."""
    # A client a phone, as at a real table: one client for every phone would put a
    # thousand streams in one connection pool, which httpx scans at every request, and the
    # load generator, not the server, would be what was measured.
    tls = ssl.create_default_context()  # made once: httpx would make one a client
    clients: list[httpx.AsyncClient] = []

    def phone() -> httpx.AsyncClient:
        clients.append(
            httpx.AsyncClient(
                base_url=f"http://{HOST}:{PORT}",
                timeout=httpx.Timeout(30, read=60),
                verify=tls,
            )
        )
        return clients[-1]

    try:
        until = time.monotonic() + seconds + 120  # the watchers outlive the playing
        watchers = []
        scorers = {table.session: phone() for table in tables}
        for table in tables:
            if watch == "none":
                continue
            if watch in ("stream", "push"):
                standings = standings_pushed if watch == "push" else standings_listening
                watchers += [standings(phone(), table, until, out) for _ in range(2)]
                watchers.append(tap_screen_listening(phone(), table, until, out))
            else:
                watchers += [standings_polling(phone(), table, until, out) for _ in range(2)]
                watchers.append(tap_screen_polling(phone(), table, until, out))
        # The phones arrive over a few seconds, as tables fill, not in the same
        # millisecond: a burst of thousands of openings is another test (a restart).
        watching = [
            asyncio.ensure_future(arriving(number / OPEN_PER_SECOND, job))
            for number, job in enumerate(watchers)
        ]
        for _ in range(1200):
            if out.opened >= len(watchers):
                break
            await asyncio.sleep(0.1)
        out.fetches = 0
        cpu = cpu_so_far(server_pid)
        with collector_held():
            started = out.playing = time.monotonic()
            stop = started + seconds
            await asyncio.gather(
                *(scorer(scorers[table.session], table, stop, out) for table in tables)
            )
            await asyncio.sleep(3)  # the last taps reach the watchers
            wall = time.monotonic() - started
            used = cpu_so_far(server_pid)
        memory = resident_mb(process_tree(server_pid))
        for job in watching:
            job.cancel()
        await asyncio.gather(*watching, return_exceptions=True)
    finally:
        await asyncio.gather(*(client.aclose() for client in clients), return_exceptions=True)
    return {
        "wall": wall,
        "server": (used[0] - cpu[0]) / wall,
        "database": (used[1] - cpu[1]) / wall,
        "client": (used[2] - cpu[2]) / wall,
        "machine": (used[3] - cpu[3]) / wall,
        "memory": memory,
    }


async def arriving(delay: float, job: Coroutine[Any, Any, None]) -> None:
    await asyncio.sleep(delay)
    await job


def own_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def postgres_cpu() -> float:
    return cpu_seconds(postgres_pids())


def by_ten_seconds(out: Figures) -> list[tuple[float, float]]:
    """The tap's p50 and p99 in each 10 s of play, in ms: flat while the server keeps up,
    rising when the taps come faster than it answers them (a queue that only grows). A
    p99 high in the first 10 s only is the workers' first taps (their cold start), not
    the steady play."""
    windows: dict[int, list[float]] = defaultdict(list)
    for answered, took in zip(out.tapped_at, out.taps, strict=True):
        windows[int((answered - out.playing) // 10)].append(took)
    return [
        (statistics.median(windows[window]) * 1000, percentile(windows[window], 0.99) * 1000)
        for window in sorted(windows)
    ]


def run(count: int, seconds: float, watch: str, workers: int) -> dict[str, object]:
    tables = make_tables(count)
    with serving(PORT, workers=workers) as server:
        out = Figures()
        used = uvloop.run(play(tables, seconds, watch, out, server.pid))
    return {
        "tables": count,
        "taps": len(out.taps),
        "tap p50 ms": statistics.median(out.taps) * 1000 if out.taps else float("nan"),
        "tap p99 ms": percentile(out.taps, 0.99) * 1000,
        "stale p50 s": percentile(out.stale, 0.5),
        "stale p95 s": percentile(out.stale, 0.95),
        "watcher req/s": out.fetches / used["wall"],
        "server CPU": used["server"],
        "PG CPU": used["database"],
        "client CPU": used["client"],
        "machine CPU": used["machine"],
        "server MB": used["memory"],
        # What a table's tap costs the whole machine, its watchers' pushes and the load
        # generator's own share included: 2 cores over this is the most taps a second
        # the box can carry at all.
        "machine ms/tap": used["machine"] * used["wall"] * 1000 / len(out.taps)
        if out.taps
        else float("nan"),
        "errors": sum(out.errors.values()),
        "_errors": dict(out.errors),
        "_by_10_s": by_ten_seconds(out),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--tables", default="100,300,1000", help="table counts to run")
    parser.add_argument("--seconds", type=float, default=60, help="how long each count plays")
    parser.add_argument("--watch", choices=["stream", "push", "poll", "none"], default="stream")
    parser.add_argument("--workers", type=int, default=0, help="gunicorn workers (0: auto)")
    options = parser.parse_args()

    print(f"machine: {os.cpu_count()} cores; watching by {options.watch}; {options.seconds:.0f} s")
    reset_database()
    setup_django()
    rows = [
        run(int(count), options.seconds, options.watch, options.workers)
        for count in options.tables.split(",")
    ]
    columns = [name for name in rows[0] if not name.startswith("_")]
    print("| " + " | ".join(columns) + " |")
    print("|" + "---:|" * len(columns))
    for row in rows:
        cells = [
            f"{row[name]:.2f}" if isinstance(row[name], float) else str(row[name])
            for name in columns
        ]
        print("| " + " | ".join(cells) + " |")
    for row in rows:
        by_10_s: list[tuple[float, float]] = row["_by_10_s"]  # type: ignore[assignment]
        steps = ", ".join(f"{p50:.0f}/{p99:.0f}" for p50, p99 in by_10_s)
        print(f"tap p50/p99 by 10 s of play at {row['tables']} tables (ms): {steps}")
    for row in rows:
        if row["_errors"]:
            print(f"errors at {row['tables']} tables:", row["_errors"])
    print("CPU is in cores (1.00 = one core busy); the machine has", os.cpu_count())


if __name__ == "__main__":
    main()
