"""`.ci/run` itself, with stub tools (no real make, PostgreSQL, lint or tests): a failed
test run fails CI, and a cancelled CI stops both test runs it started side by side."""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import subprocess
import time
from pathlib import Path

CI_RUN = Path(__file__).resolve().parents[1] / ".ci" / "run"

STUB_MAKE = """#!/usr/bin/env bash
# `make test` fails on PostgreSQL (DATABASE_URL set) when FAIL_PG=1; sleeps when SLOW=1;
# with CANCEL=1 the first run to start cancels CI itself (its parent's parent: CI starts
# `setsid bash -c 'make test; ...'`); with QUICK_SQLITE=1 the SQLite run passes at once.
if [ "${1:-}" = test ]; then
    echo $$ >>"$PIDS"
    if [ "${CANCEL:-0}" = 1 ] && mkdir "$PIDS.cancelled" 2>/dev/null; then
        kill -TERM "$(ps -o ppid= -p $PPID)"
    fi
    if [ "${QUICK_SQLITE:-0}" = 1 ] && [ -z "${DATABASE_URL:-}" ]; then
        echo "all passed"; touch "$PIDS.sqlite-done"; exit 0
    fi
    [ "${SLOW:-0}" = 1 ] && exec sleep 60
    if [ -n "${DATABASE_URL:-}" ] && [ "${FAIL_PG:-0}" = 1 ]; then echo "1 failed"; exit 1; fi
    echo "all passed"
fi
exit 0
"""


def checkout(tmp_path: Path) -> tuple[Path, dict[str, str]]:
    """A copy of .ci/run in a directory with no Makefile, and stubs first on PATH."""
    (tmp_path / "repo/.ci").mkdir(parents=True)
    script = tmp_path / "repo/.ci/run"
    shutil.copy(CI_RUN, script)
    bin_ = tmp_path / "bin"
    bin_.mkdir()
    stubs = {"make": STUB_MAKE, "pg_isready": "#!/bin/sh\nexit 0\n"}
    stubs |= {name: "#!/bin/sh\nexit 0\n" for name in ("chromium", "zbarimg")}
    for name, text in stubs.items():
        (bin_ / name).write_text(text)
        (bin_ / name).chmod(0o755)
    env = {**os.environ, "PATH": f"{bin_}:{os.environ['PATH']}", "PIDS": str(tmp_path / "pids")}
    return script, env


def running(pid: int) -> bool:
    """Still running: a process stopped but not yet reaped (a zombie, whose /proc entry
    stays until its parent or init reaps it) has stopped."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except FileNotFoundError:
        return False
    return stat.rpartition(")")[2].split()[0] != "Z"  # the state follows the name


def still_running(pids: list[int], within: float = 5.0) -> list[int]:
    """Those of `pids` still running `within` seconds from now. A signal is delivered
    when its process next runs: CI can have seen its run's first process end and exited
    while a process of that run's group, signalled at the same moment, has not been given
    a core yet (seen once in CI, with both suites busy on the two cores)."""
    deadline = time.monotonic() + within
    while (alive := [pid for pid in pids if running(pid)]) and time.monotonic() < deadline:
        time.sleep(0.05)
    return alive


def test_a_failed_postgresql_run_fails_ci(tmp_path):
    script, env = checkout(tmp_path)

    done = subprocess.run(
        ["bash", str(script)],
        env={**env, "FAIL_PG": "1"},
        capture_output=True,
        text=True,
        timeout=60,
    )

    assert "Tests on PostgreSQL (exit status 1)" in done.stdout  # the stub did fail
    assert "All green" not in done.stdout
    assert done.returncode != 0


def test_ci_cancelled_as_a_run_starts_stops_it(tmp_path):
    """Cancelled the moment the first run starts: the trap is set before either run
    starts, so a cancel in between cannot end CI alone and leave a run going."""
    script, env = checkout(tmp_path)

    done = subprocess.run(
        ["bash", str(script)],
        env={**env, "SLOW": "1", "CANCEL": "1"},
        capture_output=True,
        text=True,
        timeout=30,
    )

    started = [int(p) for p in (tmp_path / "pids").read_text().split()]
    try:
        assert still_running(started) == []
        assert "exit status stopped" in done.stdout
        assert done.returncode != 0
    finally:
        for pid in started:
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)


def cancel_ci(tmp_path: Path, env: dict[str, str], ready) -> tuple[str, int, list[int]]:
    """Start CI, cancel it (SIGTERM, as a cancelled or timed-out CI job) once `ready(the
    pids of the runs started so far)`; what it printed, its exit code and the runs still
    going. Every stub it started is killed after."""
    script = tmp_path / "repo/.ci/run"
    ci = subprocess.Popen(
        ["bash", str(script)], env=env, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True
    )
    pids_file = tmp_path / "pids"
    started: list[int] = []
    try:
        deadline = time.monotonic() + 20
        while not ready(started) and time.monotonic() < deadline:
            time.sleep(0.05)
            if pids_file.exists():
                started = [int(p) for p in pids_file.read_text().split()]
        assert ready(started)
        ci.send_signal(signal.SIGTERM)
        said, _ = ci.communicate(timeout=20)
        return said, ci.returncode, still_running(started)
    finally:
        for pid in started:  # only the stubs this test started
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)
        if ci.poll() is None:
            ci.kill()
            ci.wait()


def test_stopping_ci_stops_both_test_runs(tmp_path):
    _, env = checkout(tmp_path)

    said, code, alive = cancel_ci(tmp_path, {**env, "SLOW": "1"}, lambda runs: len(runs) == 2)

    assert alive == [], "orphaned `make test` runs are still going"
    assert "Tests on PostgreSQL (exit status stopped)" in said
    assert "Tests on SQLite (exit status stopped)" in said
    assert code != 0


def test_ci_cancelled_after_the_sqlite_run_passed_says_it_passed(tmp_path):
    """The SQLite run ends first (docs/performance.md, "CI time"). CI cancelled after it
    passed, while the PostgreSQL run goes on: each run says its own status, the one that
    ended its exit status and the one stopped "stopped" (the script said "stopped" for
    both; found by a review)."""
    _, env = checkout(tmp_path)
    sqlite_done = tmp_path / "pids.sqlite-done"

    def sqlite_passed(runs: list[int]) -> bool:
        if len(runs) < 2 or not sqlite_done.exists():
            return False
        time.sleep(0.3)  # the SQLite run has exited
        return True

    said, code, alive = cancel_ci(
        tmp_path, {**env, "SLOW": "1", "QUICK_SQLITE": "1"}, sqlite_passed
    )

    assert alive == []
    assert "Tests on PostgreSQL (exit status stopped)" in said
    assert "Tests on SQLite (exit status 0)" in said, said
    assert code != 0
