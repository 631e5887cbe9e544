"""Latency, one request at a time: each request's p50 beside the app's own floor, in one run.

    .venv/bin/python bench/load.py [--sizes 10,300,10000] [--rounds 200]

Starts the app as `make serve` runs it (gunicorn.conf.py: uvicorn's workers, the psycopg
pool) on a fresh PostgreSQL database, with sessions of each size (built by the services'
shapes in bulk, bench/history.py). Then, round after round, one client sends, in turn:

- `GET /healthz` — the framework floor: Django, the middleware, one `SELECT 1`;
- what a watching phone sends when nothing changed: the standings fragment at the
  version it shows (a page, 204) and the API's standings with `If-None-Match` (304);
- the standings, deal detail and settlement the API computes, each the first read since
  the last tap (so computed), and the fragment and the settlement again, as the next
  phone at the table asks for them (kept: tracker.answers). The API's three and the
  fragment are kept by the rows' counter (`answers.ROWS`), not the version: after a tap
  that filed nothing (two in three) their first read is the kept answer, so each of the
  four is also shown apart, after a filing (computed) and after a tap that filed nothing;
- a tap through the API (with an Idempotency-Key and the write rate counted), the way a
  phone sends it;
- the tap's round trips alone (`TapFloor`): as many statements, of the same kinds (two
  commits: the write rate's counter and the write), on a plain psycopg connection with no
  Django and no HTTP. It is what the database costs a tap on this box, whatever the code.

It prints each request's p50 and p99 and the ratio of its p50 to the floor's, per session
size; where a tap's time goes (in this process, Django's test client: its SQL statements'
own round trips, statement by statement, and the rest), against the served floor; and the
SQL queries each request runs (in this process).
Record the figures in docs/performance.md.
"""

from __future__ import annotations

import argparse
import gc
import http.client
import json
import logging
import os
import secrets
import statistics
import sys
import time
from collections import defaultdict
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.common import (  # noqa: E402
    HOST,
    percentile,
    reset_database,
    server_env,
    serving,
    setup_django,
)

PORT = 8765


class Phone:
    """One keep-alive HTTP connection."""

    def __init__(self) -> None:
        self.connection = http.client.HTTPConnection(HOST, PORT, timeout=30)

    def call(
        self, method: str, path: str, headers: dict[str, str], body: object = None
    ) -> tuple[int, http.client.HTTPResponse, bytes, float]:
        payload = None if body is None else json.dumps(body)
        started = time.perf_counter()
        self.connection.request(method, path, body=payload, headers=headers)
        response = self.connection.getresponse()
        data = response.read()
        return response.status, response, data, time.perf_counter() - started


class TapFloor:
    """The round trips a tap that files nothing sends (tests/api/test_query_counts.py:
    the token, the write rate counted and committed, BEGIN, the session locked, the deal
    and its records read, the tap written, the places written, the key stored, COMMIT), on
    a plain psycopg connection to the same database, against a scratch table."""

    def __init__(self) -> None:
        import psycopg

        from bench.common import DB_URL

        self.connection = psycopg.connect(DB_URL, autocommit=True)
        self.connection.execute(
            "CREATE TABLE IF NOT EXISTS bench_floor (id serial PRIMARY KEY, n int NOT NULL)"
        )
        self.connection.execute(
            "INSERT INTO bench_floor (id, n) VALUES (-1, 0) ON CONFLICT DO NOTHING"
        )

    def tap(self) -> float:
        run = self.connection.execute
        started = time.perf_counter()
        run("SELECT n FROM bench_floor WHERE id = %s", [-1]).fetchone()  # the token
        run(  # the write rate, counted (committed on its own)
            "INSERT INTO bench_floor (id, n) VALUES (%s, 1) "
            "ON CONFLICT (id) DO UPDATE SET n = bench_floor.n + 1 RETURNING n",
            [-2],
        ).fetchone()
        with self.connection.transaction():  # BEGIN ... COMMIT
            run("UPDATE bench_floor SET n = n + 1 WHERE id = %s RETURNING n", [-1]).fetchone()
            run("SELECT n FROM bench_floor WHERE id = %s", [-1]).fetchall()  # the deal
            run("SELECT n FROM bench_floor WHERE id = %s", [-2]).fetchall()  # its records
            run("INSERT INTO bench_floor (n) VALUES (%s)", [3])  # the tap
            run("UPDATE bench_floor SET n = n + 1 WHERE id = %s", [-2])  # the places
            run("INSERT INTO bench_floor (n) VALUES (%s)", [4])  # the key
        return time.perf_counter() - started


def build(sizes: list[int]) -> tuple[str, dict[int, dict[str, object]]]:
    """An account with an API token, and for each size a session of that many filed deals
    (and its open one), with a viewer link."""
    from django.contrib.auth import get_user_model

    from bench.history import build_session
    from tracker.access import Actor
    from tracker.services import api_token_create, circle_create, share_link_create

    user = get_user_model().objects.create_user("bench", password="bench-pass-1")
    circle_create(owner=user, name="Bench")
    token = api_token_create(user=user).key
    sessions = {}
    for size in sizes:
        session = build_session(user=user, deals=size)
        viewer = share_link_create(session_id=session.pk, role="viewer", actor=Actor(user=user))
        sessions[size] = {
            "id": session.pk,
            "viewer": viewer.token,
            "deal": session.deals.get(status="open").pk,
            "filed": session.deals.filter(status="filed").order_by("-number").first().pk,
            "players": list(session.seats.order_by("position").values_list("player_id", flat=True)),
        }
    return token, sessions


def analyze() -> None:
    """Fresh planner statistics, as autovacuum keeps them on a server whose sessions grew
    deal by deal. Without them PostgreSQL plans from the empty tables' statistics: the
    sparklines' "last 40 deals" read every deal of a 10,000-deal session (2.5 ms) rather
    than 40 from the end of the (session, number) index (0.2 ms)."""
    from django.db import connection

    with connection.cursor() as cursor:
        cursor.execute("ANALYZE")


def next_tap(deal: int, out: int, players: list[int], answer: bytes) -> tuple[int, int]:
    """The deal to tap next and how many are out on it, after a tap on `deal` answered
    `answer`: the third player out files it, and the next deal is played in another
    finishing order (`players` turned)."""
    out += 1
    if out < 3:
        return deal, out
    players.append(players.pop(0))
    return json.loads(answer)["next_deal"], 0


def rounds(
    phone: Phone, floor: TapFloor, token: str, session: dict, count: int
) -> dict[str, list[float]]:
    api = {"Authorization": f"Token {token}", "Accept-Language": "en"}
    htmx = {"HX-Request": "true", "Accept-Language": "en"}
    timings: dict[str, list[float]] = defaultdict(list)
    # Kept by the rows' counter: each also shown after a filing and after a tap that filed
    # nothing.
    split = (
        "standings (API)",
        "deal detail (API)",
        "settlement (API)",
        "standings fragment (page)",
    )
    for name in ("/healthz (the floor)", *split):
        timings[f"GET {name}"] = []  # printed in this order, each with its two after it
        for after in ("after a filing", "after a tap that filed nothing"):
            if name in split:
                timings[f"GET {name}, {after}"] = []
    sid, deal, out = session["id"], session["deal"], session.get("out", 0)
    after = "after a filing" if out == 0 else "after a tap that filed nothing"

    def timed(name: str, method: str, path: str, headers: dict, body=None, want=200):
        status, response, data, elapsed = phone.call(method, path, headers, body)
        assert status == want, (name, status, data[:200])
        timings[name].append(elapsed)
        return response, data

    for _ in range(count):
        timed("GET /healthz (the floor)", "GET", "/healthz", {})
        response, _ = timed("GET standings (API)", "GET", f"/api/sessions/{sid}/standings/", api)
        tag = response.getheader("ETag")
        version = tag.strip('"').split(".")[1]
        timed(
            "GET standings, If-None-Match (304)",
            "GET",
            f"/api/sessions/{sid}/standings/",
            {**api, "If-None-Match": tag},
            want=304,
        )
        timed(
            "GET standings fragment, unchanged (204)",
            "GET",
            f"/s/{session['viewer']}/standings/?version={version}",
            htmx,
            want=204,
        )
        timed(
            "GET standings fragment (page)",
            "GET",
            f"/s/{session['viewer']}/standings/?version=stale",
            htmx,
        )
        # The same read by the next phone at the table: kept since the first (tracker.answers).
        timed(
            "GET standings fragment, next phone",
            "GET",
            f"/s/{session['viewer']}/standings/?version=stale",
            htmx,
        )
        timed("GET deal detail (API)", "GET", f"/api/deals/{session['filed']}/", api)
        timed("GET settlement (API)", "GET", f"/api/sessions/{sid}/settlement/", api)
        for name in split:
            timings[f"GET {name}, {after}"].append(timings[f"GET {name}"][-1])
        timed("GET settlement (API), next phone", "GET", f"/api/sessions/{sid}/settlement/", api)
        players = session["players"]
        _, data = timed(
            "POST tap (API)",
            "POST",
            f"/api/deals/{deal}/taps/",
            {**api, "Content-Type": "application/json", "Idempotency-Key": secrets.token_hex(12)},
            {"player": players[out]},
            want=201,
        )
        timings["the tap's round trips alone (plain psycopg)"].append(floor.tap())
        deal, out = next_tap(deal, out, players, data)
        after = "after a filing" if out == 0 else "after a tap that filed nothing"
    session["deal"], session["out"] = deal, out  # the next call goes on where this one left
    return timings


def print_latencies(size: int, timings: dict[str, list[float]]) -> None:
    floor = statistics.median(timings["GET /healthz (the floor)"])
    print(f"\n{size} deals")
    print("| request | n | p50 ms | p99 ms | × floor |")
    print("|---|---:|---:|---:|---:|")
    for name, values in timings.items():
        p50 = statistics.median(values)
        print(
            f"| {name} | {len(values)} | {p50 * 1000:.2f} | "
            f"{percentile(values, 0.99) * 1000:.2f} | {p50 / floor:.2f} |"
        )


def query_counts(sessions: dict[int, dict]) -> None:
    """SQL queries per request, in this process, at each size."""
    from django.contrib.auth import get_user_model
    from django.db import connection
    from django.test import Client
    from django.test.utils import CaptureQueriesContext

    client = Client(HTTP_HOST=HOST)
    client.force_login(get_user_model().objects.get(username="bench"))
    sizes = sorted(sessions)
    print("\n| queries | " + " | ".join(f"{size} deals" for size in sizes) + " |")
    print("|---|" + "---:|" * len(sizes))
    for label, path in (
        ("GET deal detail", lambda s: f"/api/deals/{s['filed']}/"),
        ("GET standings (API)", lambda s: f"/api/sessions/{s['id']}/standings/"),
        ("GET settlement", lambda s: f"/api/sessions/{s['id']}/settlement/"),
        ("GET standings fragment (page)", lambda s: f"/s/{s['viewer']}/standings/"),
    ):
        counts = []
        for size in sizes:
            with CaptureQueriesContext(connection) as queries:
                assert client.get(path(sessions[size])).status_code == 200
            counts.append(len(queries))
        print(f"| {label} | " + " | ".join(str(n) for n in counts) + " |")


def tap_split(token: str, session: dict, floor: float, count: int = 150) -> None:
    """Where a tap's time goes, in this process (Django's test client: no HTTP, no
    server), against the served floor's p50 (`floor`, seconds): its SQL statements' own
    time (each sent, run and answered, timed by a Django execute wrapper; the write rate's
    counter commits within its statement) and the rest (Python, and the write's COMMIT,
    which goes around the wrapper). What the statements cost
    alone bounds how near the floor a tap can come with them, whatever the Python."""
    from django.db import connection
    from django.test import Client

    client = Client(HTTP_HOST=HOST)
    headers = {"HTTP_AUTHORIZATION": f"Token {token}", "HTTP_ACCEPT_LANGUAGE": "en"}
    deal, out, players = session["deal"], session.get("out", 0), session["players"]
    in_sql = 0.0
    statements: dict[str, list[float]] = defaultdict(list)

    def timed_sql(execute, sql, params, many, context):  # type: ignore[no-untyped-def]
        nonlocal in_sql
        started = time.perf_counter()
        try:
            return execute(sql, params, many, context)
        finally:
            elapsed = time.perf_counter() - started
            in_sql += elapsed
            statements[" ".join(sql.split())[:48]].append(elapsed)

    whole = []
    for _ in range(count):
        started = time.perf_counter()
        with connection.execute_wrapper(timed_sql):
            response = client.post(
                f"/api/deals/{deal}/taps/",
                json.dumps({"player": players[out]}),
                content_type="application/json",
                HTTP_IDEMPOTENCY_KEY=secrets.token_hex(12),
                **headers,
            )
        whole.append(time.perf_counter() - started)
        assert response.status_code == 201, response.content[:200]
        deal, out = next_tap(deal, out, players, response.content)
    session["deal"], session["out"] = deal, out
    mean, sql = statistics.mean(whole), in_sql / count
    print(f"\nWhere a tap's time goes, in this process ({count} taps, two in three filing nothing)")
    print("| part | mean ms | × served floor |")
    print("|---|---:|---:|")
    for name, value in (
        ("the whole tap in this process (test client, no HTTP)", mean),
        ("its SQL statements, each round trip", sql),
        ("the rest: Python, the COMMIT, the test client", mean - sql),
    ):
        print(f"| {name} | {value * 1000:.2f} | {value / floor:.2f} |")
    print("| statement (its mean a tap) | n | ms |")
    print("|---|---:|---:|")
    for name, values in sorted(statements.items(), key=lambda item: -sum(item[1])):
        print(f"| `{name}` | {len(values)} | {sum(values) / count * 1000:.3f} |")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--sizes", default="10,300,10000", help="session sizes, in deals")
    parser.add_argument("--rounds", type=int, default=200, help="rounds at each size")
    options = parser.parse_args()
    sizes = [int(size) for size in options.sizes.split(",")]

    print(f"machine: {os.cpu_count()} cores, Python {sys.version.split()[0]}")
    # This process answers requests too (the query counts, where a tap's time goes): as
    # the server does, not in DEBUG (whose cursor logs every statement), with the write
    # rate lifted as for the server.
    served = server_env()
    for name in ("DEBUG", "SECRET_KEY", "ALLOWED_HOSTS", "SECURE_SSL_REDIRECT", "THROTTLE_WRITES"):
        os.environ[name] = served[name]
    reset_database()
    setup_django()
    token, sessions = build(sizes)
    analyze()
    # What building a 10,000-deal session left in this process is no request's: kept out of
    # the collector's walks, or they land in the taps timed here (a tap "took" 18 ms in
    # process against 6.6 ms served).
    gc.collect()
    gc.freeze()
    with serving(PORT):
        phone, floor = Phone(), TapFloor()
        for size in sizes:
            rounds(phone, floor, token, sessions[size], 20)  # warm every worker up
            timings = rounds(phone, floor, token, sessions[size], options.rounds)
            print_latencies(size, timings)
    # This process's own requests are counted and timed here, not logged a line each.
    logging.getLogger("squarescores.requests").setLevel(logging.WARNING)
    served_floor = statistics.median(timings["GET /healthz (the floor)"])
    tap_split(token, sessions[sizes[-1]], served_floor)
    query_counts(sessions)


if __name__ == "__main__":
    main()
