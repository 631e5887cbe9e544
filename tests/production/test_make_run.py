"""`make run` as a person starts it, on a fresh SQLite file: it serves the demo, and
phones by the hundred can open a table's live standings at the same moment, while the
scorer taps on, and each hears the last tap.

Django's runserver (what `make run` served before) streams each page from a thread of its
own: with 200 phones opening at once, up to 40 % were not even answered within a minute
(its listen queue of 10 overflowed while a hundred threads held the interpreter lock).
uvicorn serves the streams as coroutines of one process.
"""

from __future__ import annotations

import asyncio
import json
import os
import signal
import socket
import subprocess
import time
from contextlib import contextmanager, suppress
from pathlib import Path

import httpx
import pytest

from tests.production.test_serve import REPO_ROOT, env_without_ours, free_port, on_postgres

PHONES = 150

pytestmark = pytest.mark.skipif(
    on_postgres(), reason="make run's database is SQLite: the SQLite run covers it"
)


@contextmanager
def make_run(tmp_path: Path):
    """`make run` as a person types it (no settings of ours from the environment), on a
    fresh SQLite file and a free port."""
    port = free_port()
    env = {
        **env_without_ours("THROTTLE_"),
        "DATABASE_URL": f"sqlite:///{tmp_path / 'db.sqlite3'}",
    }
    log = tmp_path / "make-run.log"
    with log.open("wb") as out:
        process = subprocess.Popen(
            ["make", "run", f"PORT={port}"],
            cwd=REPO_ROOT,
            env=env,
            stdout=out,
            stderr=subprocess.STDOUT,
            start_new_session=True,  # the reloader and its server: stopped together
        )
    try:
        # Migrations and the demo first; then uvicorn says it listens on the port (so the
        # port is not another process's that took it meanwhile) and its server started.
        deadline = time.monotonic() + 90
        listening = f"Uvicorn running on http://127.0.0.1:{port}"
        while not (listening in (said := log.read_text()) and "Started server process" in said):
            assert process.poll() is None, said
            assert time.monotonic() < deadline, said
            time.sleep(0.2)
        socket.create_connection(("127.0.0.1", port), timeout=5).close()
        yield f"http://127.0.0.1:{port}", log
    finally:
        with suppress(ProcessLookupError):
            os.killpg(process.pid, signal.SIGINT)  # Ctrl-C
        try:
            process.wait(timeout=15)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait(timeout=5)


async def a_table(client: httpx.AsyncClient) -> tuple[dict[str, str], dict, str]:
    """The demo account's token, a new session of its circle and a viewer link to it."""
    signed_in = await client.post(
        "/api/auth/token/", json={"username": "demo", "password": "tienlen-demo"}
    )
    api = {"Authorization": f"Token {signed_in.json()['token']}"}
    (circle,) = (await client.get("/api/circles/", headers=api)).json()
    players = (await client.get(f"/api/circles/{circle['id']}/players/", headers=api)).json()
    created = await client.post(
        "/api/sessions/",
        headers=api,
        json={
            "circle": circle["id"],
            "name": "Watched by a crowd",
            "players": [player["id"] for player in players[:4]],
            "stake": "1.00",
        },
    )
    assert created.status_code == 201, created.text
    session = created.json()
    link = await client.post(
        f"/api/sessions/{session['id']}/share-links/", headers=api, json={"role": "viewer"}
    )
    assert link.status_code == 201, link.text
    return api, session, link.json()["token"]


async def watch(client: httpx.AsyncClient, url: str, heard: list[str], first: asyncio.Event):
    """A phone with the standings open: every `data:` line it hears, in order."""
    async with client.stream("GET", url, headers={"Accept": "text/event-stream"}) as stream:
        assert stream.status_code == 200
        async for line in stream.aiter_lines():
            if line.startswith("data: ") and line[6:].isdigit():
                heard.append(line[6:])
                first.set()


async def score(
    client: httpx.AsyncClient, api: dict[str, str], session: dict, taps: list, stop: asyncio.Event
):
    """The scorer, tapping a player out every 0.2 s until `stop`; how long each tap took
    is kept in `taps`."""
    deal, players = session["current_deal"]["id"], [p["id"] for p in session["players"]]
    out = 0
    while not stop.is_set():
        started = time.monotonic()
        tapped = await client.post(
            f"/api/deals/{deal}/taps/", headers=api, json={"player": players[out]}
        )
        assert tapped.status_code == 201, tapped.text
        taps.append(time.monotonic() - started)
        out += 1
        if out == 3:  # the deal is filed: the next one, another finishing order
            deal, out = tapped.json()["next_deal"], 0
            players.append(players.pop(0))
        await asyncio.sleep(0.2)


def test_make_run_serves_the_demo_and_a_crowd_of_phones_watching_a_table(tmp_path):
    async def play(base: str) -> None:
        limits = httpx.Limits(max_connections=PHONES + 10)
        async with httpx.AsyncClient(base_url=base, timeout=30, limits=limits) as client:
            home = await client.get("/", headers={"X-Forwarded-For": "203.0.113.9"})
            assert home.status_code == 200
            assert (await client.get("/static/css/app.css")).status_code == 200
            api, session, token = await a_table(client)

            taps: list[float] = []
            stop = asyncio.Event()
            scorer = asyncio.create_task(score(client, api, session, taps, stop))
            await asyncio.sleep(1)
            phones = [([], asyncio.Event()) for _ in range(PHONES)]
            url = f"/s/{token}/live/?show=standings&seen="
            tasks = [
                asyncio.create_task(watch(client, url, heard, first)) for heard, first in phones
            ]
            try:
                # All at once, as a room of phones opening the link from a chat while the
                # table plays on: each is answered with the version it starts from.
                await asyncio.wait_for(
                    asyncio.gather(*(first.wait() for _, first in phones)), timeout=20
                )
                await asyncio.sleep(2)
                stop.set()
                await asyncio.wait_for(scorer, timeout=30)  # its last tap answered
                # The scorer was answered while the crowd came in (runserver: 4 s a tap).
                assert len(taps) >= 5 and max(taps) < 3, taps
                # ... and each phone hears the last tap (the SQLite hub reads once a second).
                last = await client.get(f"/api/sessions/{session['id']}/standings/", headers=api)
                version = last.headers["ETag"].strip('"').split(".")[1]
                deadline = time.monotonic() + 10
                while not all(heard[-1:] == [version] for heard, _ in phones):
                    assert time.monotonic() < deadline, [h[-1:] for h, _ in phones]
                    await asyncio.sleep(0.1)
            finally:
                for task in [scorer, *tasks]:
                    task.cancel()
                await asyncio.gather(scorer, *tasks, return_exceptions=True)

    with make_run(tmp_path) as (base, log):
        asyncio.run(play(base))

    said = log.read_text()
    assert "Demo data loaded." in said
    assert f"Open {base}/ and sign in as demo / tienlen-demo" in said
    # A client does not choose its own address (the sign-in lockout and the rates go by it).
    (home,) = [
        json.loads(line)
        for line in said.splitlines()
        if line.startswith("{") and json.loads(line)["path"] == "/"
    ]
    assert home["remote_addr"] == "127.0.0.1"
    assert "Traceback" not in said
    assert "warning" not in said.lower()  # e.g. Django's on WhiteNoise's file iterator


def test_make_run_answers_writes_that_meet_without_database_is_locked(tmp_path):
    """Phones write at the same moment: the scorer taps while another phone makes a share
    link, a third starts a session. Each write waits for the one before it. On SQLite's
    defaults a write that reads before it writes (a share link) met another write and
    failed at once: 503, "database is locked" (tracker.databases: WAL, IMMEDIATE)."""

    async def burst(base: str) -> list[tuple[int, str]]:
        async with httpx.AsyncClient(base_url=base, timeout=30) as client:
            api, session, _ = await a_table(client)
            answers = []
            for _ in range(10):  # 10 × 6 writes: within the write rate of one caller
                created = await client.post(
                    "/api/sessions/",
                    headers=api,
                    json={
                        "circle": session["circle"],
                        "name": "Another table",
                        "players": [player["id"] for player in session["players"]],
                        "stake": "1.00",
                    },
                )
                assert created.status_code == 201, created.text
                table = created.json()
                deal = table["current_deal"]["id"]
                link = f"/api/sessions/{table['id']}/share-links/"
                writes = [
                    *(
                        client.post(
                            f"/api/deals/{deal}/taps/", headers=api, json={"player": p["id"]}
                        )
                        for p in table["players"][:3]
                    ),
                    client.post(link, headers=api, json={"role": "viewer"}),
                    client.post(link, headers=api, json={"role": "scorer"}),
                ]
                answers += [(r.status_code, r.text) for r in await asyncio.gather(*writes)]
            return answers

    with make_run(tmp_path) as (base, log):
        answers = asyncio.run(burst(base))
    assert [answer for answer in answers if answer[0] >= 500] == []
    assert "database is locked" not in log.read_text()
