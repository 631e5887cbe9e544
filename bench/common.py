"""What the benchmarks share: a fresh PostgreSQL database, the app as `make serve` runs it
(gunicorn.conf.py: uvicorn's workers, the psycopg pool), Django in this process for
setting up tables with the app's own services, percentiles, and CPU time read from /proc.

Only loopback addresses are used; every wait is bounded.
"""

from __future__ import annotations

import http.client
import os
import secrets
import subprocess
import sys
import time
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from pathlib import Path

import psycopg

ROOT = Path(__file__).resolve().parent.parent
HOST = "127.0.0.1"
ADMIN_URL = "postgres://postgres@127.0.0.1:5432/postgres"
DB_NAME = "squarescores_bench"
DB_URL = f"postgres://postgres@127.0.0.1:5432/{DB_NAME}"
PLAYERS = ["Alice", "Ben", "Cara", "Dev"]
CLOCK_TICKS = os.sysconf("SC_CLK_TCK")


def server_env(**overrides: str) -> dict[str, str]:
    return {
        **os.environ,
        "DATABASE_URL": DB_URL,
        "DB_POOL": "true",
        "DEBUG": "false",
        "SECRET_KEY": secrets.token_urlsafe(50),
        "ALLOWED_HOSTS": HOST,
        "SECURE_SSL_REDIRECT": "false",
        "LOG_LEVEL": "WARNING",
        # Production's write rate is 120 a minute per caller; one benchmark caller taps for
        # many tables, so the limit is lifted here (the counter still runs).
        "THROTTLE_WRITES": "1000000/min",
        **overrides,
    }


def reset_database() -> None:
    with psycopg.connect(ADMIN_URL, autocommit=True) as connection:
        connection.execute(f"DROP DATABASE IF EXISTS {DB_NAME} WITH (FORCE)")
        connection.execute(f"CREATE DATABASE {DB_NAME}")
    for command in (["migrate", "--noinput"], ["collectstatic", "--noinput"]):
        subprocess.run(
            [sys.executable, "manage.py", *command],
            cwd=ROOT,
            env=server_env(),
            check=True,
            capture_output=True,
        )


def setup_django() -> None:
    """Django in this process, on the benchmark database, to set tables up with the app's
    own services (and to count queries in process)."""
    os.environ.update(
        DATABASE_URL=DB_URL, DJANGO_SETTINGS_MODULE="tracker.settings", LOG_LEVEL="WARNING"
    )
    sys.path.insert(0, str(ROOT))
    import django

    django.setup()


@contextmanager
def serving(port: int, workers: int = 0, **env: str) -> Iterator[subprocess.Popen[bytes]]:
    """The app as `make serve` runs it (gunicorn --config gunicorn.conf.py). Its request
    log (a JSON line a request, with the time the server spent) goes to the file that
    BENCH_SERVER_LOG names, if any."""
    command = [sys.executable, "-m", "gunicorn", "--config", "gunicorn.conf.py"]
    extra = {"BIND": f"{HOST}:{port}"}
    if workers:
        extra["WEB_CONCURRENCY"] = str(workers)
    log_path = os.environ.get("BENCH_SERVER_LOG")
    with open(log_path or os.devnull, "wb") as log:
        server = subprocess.Popen(command, cwd=ROOT, env=server_env(**extra, **env), stdout=log)
    try:
        wait_for(server, port)
        yield server
    finally:
        server.terminate()  # streams still open hold gunicorn's graceful stop to its end
        try:
            server.wait(timeout=35)
        except subprocess.TimeoutExpired:
            server.kill()
            server.wait()


def wait_for(process: subprocess.Popen[bytes], port: int) -> None:
    for _ in range(150):
        if process.poll() is not None:
            raise SystemExit("gunicorn exited early; run `make serve` to see why")
        try:
            connection = http.client.HTTPConnection(HOST, port, timeout=1)
            try:
                connection.request("GET", "/healthz")
                if connection.getresponse().status == 200:
                    return
            finally:
                connection.close()
        except OSError:
            pass
        time.sleep(0.2)
    raise SystemExit("gunicorn did not answer /healthz within 30 s")


def percentile(values: Iterable[float], fraction: float) -> float:
    ordered = sorted(values)
    if not ordered:
        return float("nan")
    return ordered[min(len(ordered) - 1, int(fraction * len(ordered)))]


# --- CPU time, from /proc ------------------------------------------------------------------


def _children(pid: int) -> list[int]:
    found = []
    for task in Path(f"/proc/{pid}/task").glob("*"):
        children = task / "children"
        if children.exists():
            found += [int(child) for child in children.read_text().split()]
    return found


def process_tree(pid: int) -> list[int]:
    tree, todo = [], [pid]
    while todo:
        current = todo.pop()
        tree.append(current)
        todo += _children(current)
    return tree


def cpu_seconds(pids: Iterable[int]) -> float:
    """User + system CPU time the processes have used so far."""
    total = 0
    for pid in pids:
        try:
            fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue  # gone
        total += int(fields[11]) + int(fields[12])  # utime, stime
    return total / CLOCK_TICKS


def resident_mb(pids: Iterable[int]) -> float:
    """The processes' resident memory, in MB (shared pages counted in each)."""
    total = 0
    for pid in pids:
        try:
            status = Path(f"/proc/{pid}/status").read_text()
        except OSError:
            continue  # gone
        for line in status.splitlines():
            if line.startswith("VmRSS:"):
                total += int(line.split()[1])  # kB
    return total / 1024


def machine_busy_seconds() -> float:
    """CPU time the whole machine has spent busy so far (every core, every process, the
    kernel's own work included), from /proc/stat: what the processes' own counts miss
    (backends that came and went, the kernel's network work) shows in the difference."""
    ticks = [int(value) for value in Path("/proc/stat").read_text().split("\n", 1)[0].split()[1:]]
    idle = ticks[3] + ticks[4]  # idle, iowait
    return (sum(ticks[:8]) - idle) / CLOCK_TICKS


def postgres_pids() -> list[int]:
    pids = []
    for stat in Path("/proc").glob("[0-9]*/comm"):
        try:
            if stat.read_text().strip() in {"postgres", "postmaster"}:
                pids.append(int(stat.parent.name))
        except OSError:
            continue
    return pids
