"""Load benchmark: gunicorn + PostgreSQL, N tables tapping whole sessions over HTTP.

    .venv/bin/python bench/load.py [--tables 8] [--deals 15] [--scale 10,1000,10000]

Starts its own gunicorn on 127.0.0.1 against a fresh PostgreSQL database, drives the API
the way phones at a table do (tap, deal detail, standings, settlement), and prints p50/p99
latency and throughput per endpoint beside two floors measured in the same run:

- the framework floor: `GET /healthz` of the same app (Django, middleware, one `SELECT 1`);
- the commit floor: a plain `INSERT ... COMMIT` on the same database from this process.

Then it prints SQL queries per request (in process, Django's test client) and how long
standings take at 10, 1,000 and 10,000 deals. Only loopback addresses are used; every loop
is bounded. Record the figures in docs/performance.md.
"""

from __future__ import annotations

import argparse
import http.client
import json
import logging
import os
import secrets
import statistics
import subprocess
import sys
import threading
import time
from collections import defaultdict
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import psycopg

ROOT = Path(__file__).resolve().parent.parent
HOST, PORT = "127.0.0.1", 8765
ADMIN_URL = "postgres://postgres@127.0.0.1:5432/postgres"
DB_NAME = "squarescores_bench"
DB_URL = f"postgres://postgres@127.0.0.1:5432/{DB_NAME}"
PLAYERS = ["Alice", "Ben", "Cara", "Dev"]


def server_env() -> dict[str, str]:
    return {
        **os.environ,
        "DATABASE_URL": DB_URL,
        "DB_POOL": "true",
        "DEBUG": "false",
        "SECRET_KEY": secrets.token_urlsafe(50),
        "ALLOWED_HOSTS": HOST,
        "SECURE_SSL_REDIRECT": "false",
        "LOG_LEVEL": "WARNING",
        "THROTTLE_RATES_OFF": "true",
    }


def reset_database() -> None:
    with psycopg.connect(ADMIN_URL, autocommit=True) as connection:
        connection.execute(f"DROP DATABASE IF EXISTS {DB_NAME} WITH (FORCE)")
        connection.execute(f"CREATE DATABASE {DB_NAME}")


def manage(*args: str) -> str:
    result = subprocess.run(
        [sys.executable, "manage.py", *args],
        cwd=ROOT,
        env=server_env(),
        check=True,
        capture_output=True,
        text=True,
    )
    return result.stdout


def create_account() -> str:
    """A user with a token, made by the app's own code."""
    script = (
        "from django.contrib.auth import get_user_model;"
        "from tracker.services import api_token_create;"
        "from tracker.services import circle_create;"
        "u = get_user_model().objects.create_user('bench', password='bench-pass-1');"
        "c = circle_create(owner=u, name='Bench');"
        "print(api_token_create(user=u).key, c.pk)"
    )
    return manage("shell", "-c", script).strip().splitlines()[-1]


class Client:
    """One keep-alive HTTP connection, as one phone."""

    def __init__(self, token: str) -> None:
        self.connection = http.client.HTTPConnection(HOST, PORT, timeout=30)
        self.headers = {"Authorization": f"Token {token}", "Content-Type": "application/json"}

    def call(self, method: str, path: str, body: object = None) -> tuple[int, object, float]:
        payload = None if body is None else json.dumps(body)
        headers = dict(self.headers)
        if method != "GET":
            headers["Idempotency-Key"] = secrets.token_hex(16)
        started = time.perf_counter()
        self.connection.request(method, path, body=payload, headers=headers)
        response = self.connection.getresponse()
        data = response.read()
        elapsed = time.perf_counter() - started
        return response.status, (json.loads(data) if data else None), elapsed


def wait_for_server(process: subprocess.Popen[bytes]) -> None:
    for _ in range(100):
        if process.poll() is not None:
            raise SystemExit("gunicorn exited early; run `make serve` to see why")
        try:
            connection = http.client.HTTPConnection(HOST, PORT, timeout=1)
            connection.request("GET", "/healthz")
            if connection.getresponse().status == 200:
                return
        except OSError:
            pass
        time.sleep(0.2)
    raise SystemExit("gunicorn did not answer /healthz within 20 s")


def play_table(token: str, circle: int, deals: int, timings: dict[str, list[float]]) -> None:
    client = Client(token)
    status, session, _ = client.call(
        "POST",
        "/api/sessions/",
        # Each table its own players: tables share the circle but not the people.
        {
            "circle": circle,
            "name": "Bench table",
            "players": [f"{name} {secrets.token_hex(3)}" for name in PLAYERS],
            "stake": "1.00",
        },
    )
    assert status == 201, (status, session)
    assert isinstance(session, dict)
    ids = [player["id"] for player in session["players"]]
    deal_id = session["current_deal"]["id"]
    for number in range(deals):
        order = ids[number % 4 :] + ids[: number % 4]
        for player in order[:3]:
            status, deal, elapsed = client.call(
                "POST", f"/api/deals/{deal_id}/taps/", {"player": player}
            )
            assert status == 201, (status, deal)
            timings["tap"].append(elapsed)
            # The floor is sampled as often as the tap, under the same load, so that the
            # ratio between their medians is not at the mercy of a few samples.
            status, _, elapsed = client.call("GET", "/healthz")
            assert status == 200, ("floor /healthz", status)
            timings["floor /healthz"].append(elapsed)
        assert isinstance(deal, dict)
        for name, path in (
            ("deal detail", f"/api/deals/{deal_id}/"),
            ("standings", f"/api/sessions/{session['id']}/standings/"),
            ("settlement", f"/api/sessions/{session['id']}/settlement/"),
        ):
            status, _, elapsed = client.call("GET", path)
            assert status == 200, (name, status)
            timings[name].append(elapsed)
        deal_id = deal["next_deal"]


def commit_floor(samples: int, threads: int) -> list[float]:
    def run(count: int) -> list[float]:
        times = []
        with psycopg.connect(DB_URL) as connection:
            connection.execute("CREATE TABLE IF NOT EXISTS bench_floor (id bigserial, v int)")
            connection.commit()
            for index in range(count):
                started = time.perf_counter()
                connection.execute("INSERT INTO bench_floor (v) VALUES (%s)", (index,))
                connection.commit()
                times.append(time.perf_counter() - started)
        return times

    with psycopg.connect(DB_URL, autocommit=True) as connection:
        connection.execute("CREATE TABLE IF NOT EXISTS bench_floor (id bigserial, v int)")
    with ThreadPoolExecutor(threads) as pool:
        parts = pool.map(run, [samples // threads] * threads)
    return [t for part in parts for t in part]


def percentile(values: list[float], fraction: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(fraction * len(ordered)))]


def print_latencies(timings: dict[str, list[float]], wall: float) -> None:
    floor = statistics.median(timings["floor /healthz"])
    commit = statistics.median(timings["commit floor (INSERT+COMMIT)"])
    columns = ("n", "p50 ms", "p99 ms", "req/s", "×floor", "×commit")
    print(f"\n{'endpoint':32} " + " ".join(f"{column:>8}" for column in columns))
    for name, values in timings.items():
        p50 = statistics.median(values)
        rate = len(values) / wall if "commit" not in name else float("nan")
        print(
            f"{name:32} {len(values):8d} {p50 * 1000:8.2f} {percentile(values, 0.99) * 1000:8.2f}"
            f" {rate:8.1f} {p50 / floor:8.2f} {p50 / commit:8.2f}"
        )


def in_process_measurements(scales: list[int]) -> None:
    """Queries per request and standings time as the session grows, in this process."""
    os.environ.update(
        {
            "DATABASE_URL": DB_URL,
            "DJANGO_SETTINGS_MODULE": "tracker.settings",
            "LOG_LEVEL": "WARNING",
        }
    )
    sys.path.insert(0, str(ROOT))
    import django

    django.setup()
    # The request log is always on in the app; here it would bury the table in lines.
    logging.getLogger("squarescores.requests").setLevel(logging.WARNING)
    from django.contrib.auth import get_user_model
    from django.db import connection
    from django.test import Client as DjangoClient
    from django.test.utils import CaptureQueriesContext

    from bench.history import build_session
    from tracker.selectors import session_standings

    user = get_user_model().objects.get(username="bench")
    print(f"\n{'deals':>7} {'standings ms (median of 5)':>28} {'queries':>8}")
    sessions = {}
    for deals in scales:
        session = build_session(user=user, deals=deals)
        sessions[deals] = session
        times = []
        for _ in range(5):
            started = time.perf_counter()
            session_standings(session)
            times.append(time.perf_counter() - started)
        with CaptureQueriesContext(connection) as queries:
            session_standings(session)
        print(f"{deals:7d} {statistics.median(times) * 1000:28.2f} {len(queries):8d}")

    client = DjangoClient()
    client.force_login(user)
    print(f"\n{'request':40} " + " ".join(f"{n:>8}" for n in scales))
    for label, make_path in (
        ("GET deal detail", lambda s: f"/api/deals/{s.deals.order_by('-number')[1].pk}/"),
        ("GET standings", lambda s: f"/api/sessions/{s.pk}/standings/"),
        ("GET settlement", lambda s: f"/api/sessions/{s.pk}/settlement/"),
    ):
        counts = []
        for deals in scales:
            path = make_path(sessions[deals])
            with CaptureQueriesContext(connection) as queries:
                response = client.get(path, HTTP_HOST=HOST)
            assert response.status_code == 200, (label, response.status_code)
            counts.append(len(queries))
        print(f"{label:40} " + " ".join(f"{n:8d}" for n in counts))
    counts = []
    for deals in scales:
        session = sessions[deals]
        deal = session.deals.get(status="open")
        player = deal.deal_players.order_by("seat").first().player_id
        with CaptureQueriesContext(connection) as queries:
            response = client.post(
                f"/api/deals/{deal.pk}/taps/",
                {"player": player},
                content_type="application/json",
                HTTP_HOST=HOST,
            )
        assert response.status_code == 201, response.content
        counts.append(len(queries))
    print(f"{'POST tap':40} " + " ".join(f"{n:8d}" for n in counts))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--tables", type=int, default=8, help="concurrent tables (threads)")
    parser.add_argument("--deals", type=int, default=15, help="deals each table plays")
    parser.add_argument("--workers", type=int, default=0, help="gunicorn workers (0: auto)")
    parser.add_argument("--scale", default="10,1000,10000", help="session sizes for standings")
    options = parser.parse_args()

    print(f"machine: {os.cpu_count()} cores, Python {sys.version.split()[0]}")
    reset_database()
    manage("migrate", "--noinput")
    manage("collectstatic", "--noinput")
    token, circle = create_account().split()

    command = [sys.executable, "-m", "gunicorn", "-b", f"{HOST}:{PORT}"]
    if options.workers:
        command += ["-w", str(options.workers)]
    command += (
        ["-c", str(ROOT / "gunicorn.conf.py")] if (ROOT / "gunicorn.conf.py").exists() else []
    )
    server = subprocess.Popen(command, cwd=ROOT, env=server_env(), stdout=subprocess.DEVNULL)
    try:
        wait_for_server(server)
        timings: dict[str, list[float]] = defaultdict(list)
        lock = threading.Lock()
        per_table: list[dict[str, list[float]]] = [defaultdict(list) for _ in range(options.tables)]
        started = time.perf_counter()
        with ThreadPoolExecutor(options.tables) as pool:
            list(
                pool.map(
                    lambda t: play_table(token, int(circle), options.deals, t),
                    per_table,
                )
            )
        wall = time.perf_counter() - started
        with lock:
            for table in per_table:
                for name, values in table.items():
                    timings[name].extend(values)
        timings["commit floor (INSERT+COMMIT)"] = commit_floor(
            samples=len(timings["tap"]), threads=options.tables
        )
        print(f"{options.tables} tables × {options.deals} deals in {wall:.1f} s")
        print_latencies(timings, wall)
    finally:
        server.terminate()
        server.wait(timeout=30)
    in_process_measurements([int(n) for n in options.scale.split(",")])


if __name__ == "__main__":
    main()
