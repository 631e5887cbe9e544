"""Serving for real: the deployment check, gunicorn with production settings, the pool,
and a clear 503 while PostgreSQL is out of reach.

These start real processes (manage.py, gunicorn) with a production environment built
from scratch, so nothing from the developer's shell leaks in.
"""

from __future__ import annotations

import http.client
import json
import multiprocessing
import os
import runpy
import secrets
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import pytest
from django.conf import settings

from tracker.middleware import UNAVAILABLE

REPO_ROOT = Path(__file__).resolve().parents[2]
GUNICORN = Path(sys.executable).parent / "gunicorn"
# Variables the settings or gunicorn.conf.py read: each test sets its own.
OURS = {
    "DEBUG",
    "SECRET_KEY",
    "ALLOWED_HOSTS",
    "CSRF_TRUSTED_ORIGINS",
    "DATABASE_URL",
    "DB_POOL",
    "DB_POOL_MAX_SIZE",
    "DB_POOL_TIMEOUT",
    "LOG_LEVEL",
    "BEHIND_PROXY",
    "BIND",
    "PORT",
    "WEB_CONCURRENCY",
    "GUNICORN_CMD_ARGS",
}


def env_without_ours(*prefixes: str) -> dict[str, str]:
    """This environment without any setting of ours (`OURS`, `SECURE_*`, and names that
    start with `prefixes`)."""
    return {
        name: value
        for name, value in os.environ.items()
        if name not in OURS and not name.startswith(("SECURE_", *prefixes))
    }


def production_env(**overrides: str) -> dict[str, str]:
    env = env_without_ours()
    env.update(
        DEBUG="false",
        SECRET_KEY=secrets.token_urlsafe(50),
        ALLOWED_HOSTS="scores.example.com,127.0.0.1",
    )
    env.update(overrides)
    return env


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def on_postgres() -> bool:
    return settings.DATABASES["default"]["ENGINE"] == "django.db.backends.postgresql"


# --- manage.py check --deploy ---------------------------------------------------------


def check_deploy(env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "manage.py", "check", "--deploy", "--fail-level", "WARNING"],
        cwd=REPO_ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


@pytest.mark.parametrize(
    "database",
    [
        {},
        {"DATABASE_URL": "postgres://scores:secret@db.internal:5432/scores", "DB_POOL": "true"},
    ],
    ids=["sqlite", "postgres-pool"],
)
def test_check_deploy_passes_with_production_environment(database):
    result = check_deploy(production_env(**database))

    assert result.returncode == 0, result.stdout + result.stderr
    assert "System check identified no issues" in result.stdout


def test_check_deploy_fails_with_development_settings():
    result = check_deploy(production_env(DEBUG="true", SECRET_KEY=""))

    assert result.returncode == 1
    assert "security.W018" in result.stderr  # DEBUG on


# --- gunicorn -------------------------------------------------------------------------


def gunicorn_config(monkeypatch, **env: str) -> dict:
    for name in ("BIND", "PORT", "WEB_CONCURRENCY"):
        monkeypatch.delenv(name, raising=False)
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    return runpy.run_path(str(REPO_ROOT / "gunicorn.conf.py"))


def test_gunicorn_config_defaults(monkeypatch):
    config = gunicorn_config(monkeypatch)

    assert (config["bind"], config["workers"]) == (
        ["127.0.0.1:8000"],
        multiprocessing.cpu_count() * 2 + 1,
    )
    assert (config["wsgi_app"], config["preload_app"]) == ("tracker.asgi:application", False)
    assert config["worker_class"] == "tracker.serving.Worker"  # uvicorn's, for live streams
    assert (config["accesslog"], config["errorlog"]) == (None, "-")


@pytest.mark.parametrize(
    ("env", "bind", "workers"),
    [
        ({"PORT": "5000"}, ["0.0.0.0:5000"], None),
        ({"PORT": "5000", "BIND": "10.0.0.5:8080"}, ["10.0.0.5:8080"], None),
        ({"WEB_CONCURRENCY": "3"}, ["127.0.0.1:8000"], 3),
    ],
)
def test_gunicorn_config_reads_the_environment(monkeypatch, env, bind, workers):
    config = gunicorn_config(monkeypatch, **env)

    assert config["bind"] == bind
    assert config["workers"] == (workers or multiprocessing.cpu_count() * 2 + 1)


@dataclass
class Server:
    port: int
    process: subprocess.Popen[bytes]
    stdout: Path
    stderr: Path
    lines: list[dict] = field(default_factory=list)

    def get(self, path: str, headers: dict[str, str] | None = None) -> tuple[int, Any, str]:
        # http.client, not urllib: a redirect is an answer here, not something to follow.
        connection = http.client.HTTPConnection("127.0.0.1", self.port, timeout=30)
        try:
            connection.request("GET", path, headers=headers or {})
            response = connection.getresponse()
            # Header names are case-insensitive (uvicorn sends them in lower case).
            return response.status, response.headers, response.read().decode()
        finally:
            connection.close()


@contextmanager
def gunicorn(env: dict[str, str], tmp_path: Path) -> Iterator[Server]:
    """`gunicorn --config gunicorn.conf.py` as `make serve` runs it, on a free port."""
    port = free_port()
    env = {**env, "BIND": f"127.0.0.1:{port}", "WEB_CONCURRENCY": "2"}
    stdout, stderr = tmp_path / "gunicorn.out", tmp_path / "gunicorn.err"
    with stdout.open("wb") as out, stderr.open("wb") as err:
        process = subprocess.Popen(
            [str(GUNICORN), "--config", "gunicorn.conf.py"],
            cwd=REPO_ROOT,
            env=env,
            stdout=out,
            stderr=err,
        )
    server = Server(port=port, process=process, stdout=stdout, stderr=stderr)
    try:
        deadline = time.monotonic() + 30
        while True:
            assert process.poll() is None, stderr.read_text()
            try:
                socket.create_connection(("127.0.0.1", port), timeout=1).close()
                break
            except OSError:
                assert time.monotonic() < deadline, "gunicorn did not start listening"
                time.sleep(0.1)
        yield server
    finally:
        process.terminate()
        process.wait(timeout=30)
    server.lines = [json.loads(line) for line in stdout.read_text().splitlines()]


def test_gunicorn_serves_healthz_with_production_settings(tmp_path):
    if on_postgres():  # the pool, on the database the tests run on (SELECT 1 only)
        database = {"DATABASE_URL": os.environ["DATABASE_URL"], "DB_POOL": "true"}
    else:
        database = {"DATABASE_URL": f"sqlite:///{tmp_path / 'db.sqlite3'}"}

    with gunicorn(production_env(**database), tmp_path) as server:
        answers = [server.get("/healthz") for _ in range(6)]
        redirect = server.get("/api/circles/")

    assert [(status, body) for status, _, body in answers] == [
        (200, '{"status": "ok", "database": "ok"}')
    ] * 6
    # Plain HTTP is redirected to HTTPS, except the health check load balancers probe.
    assert redirect[0] == 301
    assert redirect[1]["Location"] == f"https://127.0.0.1:{server.port}/api/circles/"
    assert [(line["method"], line["path"], line["status"]) for line in server.lines] == [
        ("GET", "/healthz", 200)
    ] * 6 + [("GET", "/api/circles/", 301)]
    assert "Traceback" not in server.stderr.read_text()


@pytest.mark.parametrize("pool", ["false", "true"], ids=["connection-per-request", "pool"])
def test_gunicorn_answers_503_while_database_unreachable(tmp_path, pool):
    nowhere = f"postgres://postgres@127.0.0.1:{free_port()}/squarescores"
    env = production_env(
        DATABASE_URL=nowhere, DB_POOL=pool, DB_POOL_TIMEOUT="1", BEHIND_PROXY="true"
    )
    https = {"X-Forwarded-Proto": "https"}

    with gunicorn(env, tmp_path) as server:
        health = server.get("/healthz")
        api = server.get("/api/circles/", {**https, "Authorization": "Token 0123456789abcdef"})
        page = server.get("/admin/", {**https, "Cookie": "sessionid=abcdefghijklmnop"})

    assert (health[0], json.loads(health[2])) == (
        503,
        {"status": "error", "database": "unavailable"},
    )
    assert (api[0], json.loads(api[2])) == (503, {"detail": UNAVAILABLE})
    assert (page[0], page[2]) == (503, UNAVAILABLE)
    assert [answer[1]["Retry-After"] for answer in (health, api, page)] == ["5", "5", "5"]
    assert [line["status"] for line in server.lines] == [503, 503, 503]


# --- PostgreSQL lost and back ---------------------------------------------------------


class Relay:
    """A TCP relay in front of PostgreSQL. `cut()` drops every connection and refuses new
    ones, as a stopped server does; `restore()` listens again on the same port."""

    def __init__(self, host: str, port: int) -> None:
        self.target = (host, port)
        self.port = free_port()
        self.listener: socket.socket | None = None
        self.sockets: list[socket.socket] = []

    def restore(self) -> None:
        self.listener = socket.create_server(("127.0.0.1", self.port))
        threading.Thread(target=self._accept, args=(self.listener,), daemon=True).start()

    def cut(self) -> None:
        assert self.listener is not None
        # shutdown() wakes the thread blocked in accept(); close() alone would leave the
        # port listening until the next connection arrives.
        with suppress(OSError):
            self.listener.shutdown(socket.SHUT_RDWR)
        self.listener.close()
        for sock in self.sockets:
            with suppress(OSError):
                sock.shutdown(socket.SHUT_RDWR)
            sock.close()
        self.sockets.clear()

    def _accept(self, listener: socket.socket) -> None:
        while True:
            try:
                client, _ = listener.accept()
            except OSError:
                return
            upstream = socket.create_connection(self.target)
            self.sockets += [client, upstream]
            for source, sink in ((client, upstream), (upstream, client)):
                threading.Thread(target=self._pump, args=(source, sink), daemon=True).start()

    @staticmethod
    def _pump(source: socket.socket, sink: socket.socket) -> None:
        try:
            while chunk := source.recv(65536):
                sink.sendall(chunk)
        except OSError:
            pass
        for sock in (source, sink):
            with suppress(OSError):
                sock.shutdown(socket.SHUT_RDWR)


def seconds_to_recover(server: Server, in_a_row: int = 6, within: float = 30) -> float:
    """Ask /healthz until it answers 200 `in_a_row` times running (so every worker is
    back, not just one); return how long that took."""
    started = time.monotonic()
    streak = 0
    while streak < in_a_row:
        assert time.monotonic() - started < within, f"/healthz not back after {within} s"
        streak = streak + 1 if server.get("/healthz")[0] == 200 else 0
    return time.monotonic() - started


@pytest.mark.postgres
@pytest.mark.parametrize("pool", ["false", "true"], ids=["connection-per-request", "pool"])
def test_gunicorn_recovers_when_postgresql_comes_back(tmp_path, pool):
    url = urlsplit(os.environ["DATABASE_URL"])
    relay = Relay(url.hostname or "127.0.0.1", url.port or 5432)
    relay.restore()
    via_relay = url._replace(netloc=f"{url.username}@127.0.0.1:{relay.port}").geturl()
    env = production_env(DATABASE_URL=via_relay, DB_POOL=pool, DB_POOL_TIMEOUT="1")

    with gunicorn(env, tmp_path) as server:
        before = [server.get("/healthz")[0] for _ in range(4)]
        relay.cut()
        during = [server.get("/healthz")[0] for _ in range(8)]
        relay.restore()
        recovery = seconds_to_recover(server)
        relay.cut()

    assert (before, during) == ([200] * 4, [503] * 8)
    # Back within a few seconds: a pool does not sit out a long reconnection backoff.
    assert recovery < 5
    # The same two workers served throughout: no crash, no timeout, no restart.
    errors = server.stderr.read_text()
    assert errors.count("Booting worker") == 2
    assert "WORKER TIMEOUT" not in errors
    assert "Traceback" not in errors
