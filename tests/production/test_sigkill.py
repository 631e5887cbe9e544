"""A server killed with SIGKILL in the middle of a burst of taps (issue 5 §3).

Real gunicorn against the test PostgreSQL database. Six tables tap their players at once;
the whole server (master and workers) is killed mid-burst and started again. Then:
no deal is half-filed, every stored ledger equals a fresh recomputation and sums to zero,
and every client retries what it sent with the same Idempotency-Key — each tap is applied
exactly once.
"""

from __future__ import annotations

import http.client
import json
import os
import signal
import subprocess
import threading
import time
import uuid
from decimal import Decimal

import pytest
from django.conf import settings

import scoring
from tests.production.test_serve import GUNICORN, REPO_ROOT, free_port, production_env
from tracker.models import Deal, LedgerLine, Tap
from tracker.records import deal_facts
from tracker.services import api_token_create

pytestmark = [pytest.mark.postgres, pytest.mark.django_db(transaction=True)]

TABLES = 6
ORDER = ("Alice", "Ben", "Cara")  # each table taps these three; the third tap files


def url_of_the_test_database() -> str:
    database = settings.DATABASES["default"]
    return f"postgres://{database['USER']}@{database['HOST']}:{database['PORT']}/{database['NAME']}"


def start_server(port: int, log) -> subprocess.Popen[bytes]:
    env = production_env(
        DATABASE_URL=url_of_the_test_database(),
        BIND=f"127.0.0.1:{port}",
        WEB_CONCURRENCY="2",
        SECURE_SSL_REDIRECT="false",
        THROTTLE_RATES_OFF="true",
    )
    process = subprocess.Popen(
        [str(GUNICORN), "--config", "gunicorn.conf.py"],
        cwd=REPO_ROOT,
        env=env,
        stdout=log,
        stderr=log,
        start_new_session=True,  # its own process group: one SIGKILL takes master and workers
    )
    deadline = time.monotonic() + 30
    while True:
        assert process.poll() is None, "gunicorn exited"
        # Closed every try: a server still booting can accept the socket and answer
        # nothing in time, and a socket left open fails the test as a ResourceWarning.
        connection = http.client.HTTPConnection("127.0.0.1", port, timeout=2)
        try:
            connection.request("GET", "/healthz")
            if connection.getresponse().status == 200:
                return process
        except OSError:
            pass
        finally:
            connection.close()
        assert time.monotonic() < deadline, "gunicorn did not come up"
        time.sleep(0.1)


def post(port: int, path: str, body: dict, token: str, key: str) -> int | None:
    """The status, or None when the server died before answering."""
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=20)
    try:
        connection.request(
            "POST",
            path,
            body=json.dumps(body),
            headers={
                "Authorization": f"Token {token}",
                "Content-Type": "application/json",
                "Idempotency-Key": key,
            },
        )
        return connection.getresponse().status
    except (OSError, http.client.HTTPException):
        return None
    finally:
        connection.close()


def retry(port: int, path: str, body: dict, token: str, key: str) -> int | None:
    """As a phone does: while the key is still held by the dead request (409), wait and
    send the same again."""
    for _ in range(40):
        status = post(port, path, body, token, key)
        if status != 409:
            return status
        time.sleep(0.25)
    return status


def test_sigkill_mid_burst_loses_nothing_and_applies_retries_once(make_session, user, tmp_path):
    token = api_token_create(user=user).key
    tables = []
    for _ in range(TABLES):
        session, players = make_session()
        deal = session.deals.get(status=Deal.Status.OPEN)
        # Each tap's request, fixed up front: the retry sends exactly the same.
        taps = [(f"/api/deals/{deal.pk}/taps/", {"player": players[name].pk}) for name in ORDER]
        tables.append((session, deal, taps, [str(uuid.uuid4()) for _ in taps]))

    port = free_port()
    log = (tmp_path / "gunicorn.log").open("wb")
    server = start_server(port, log)
    answers: dict[tuple[int, int], int | None] = {}

    def play(index: int) -> None:
        _, _, taps, keys = tables[index]
        for step, ((path, body), key) in enumerate(zip(taps, keys, strict=True)):
            answers[(index, step)] = status = post(port, path, body, token, key)
            if status is None:
                return  # the server is gone: this phone waits and retries later

    threads = [threading.Thread(target=play, args=(index,)) for index in range(TABLES)]
    for thread in threads:
        thread.start()
    time.sleep(0.15)  # some taps land, some are in flight
    os.killpg(server.pid, signal.SIGKILL)
    server.wait(timeout=10)
    for thread in threads:
        thread.join(timeout=30)

    # After the crash and before any retry: nothing is half-done.
    for session, _, _, _ in tables:
        assert_consistent(session)

    server = start_server(port, log)
    try:
        for index, (_, _, taps, keys) in enumerate(tables):
            for step, ((path, body), key) in enumerate(zip(taps, keys, strict=True)):
                if answers.get((index, step)) == 201:
                    continue
                # A retry with the same key: replayed if it was applied, run if it was not.
                assert retry(port, path, body, token, key) == 201
            # And a duplicate retry of every tap is answered from the key, not applied.
            for (path, body), key in zip(taps, keys, strict=True):
                assert post(port, path, body, token, key) == 201
    finally:
        os.killpg(server.pid, signal.SIGTERM)
        server.wait(timeout=30)
        log.close()

    assert any(status is None for status in answers.values()) or len(answers) < 3 * TABLES, (
        "the kill came after the burst; nothing was tested mid-flight"
    )
    for session, deal, _, _ in tables:
        assert_consistent(session)
        deal.refresh_from_db()
        assert deal.status == Deal.Status.FILED
        live = Tap.objects.filter(deal=deal, undone_at__isnull=True).order_by("place")
        assert [(tap.player.name, tap.place) for tap in live] == [
            ("Alice", 1),
            ("Ben", 2),
            ("Cara", 3),
        ]
        assert session.deals.count() == 2


def assert_consistent(session) -> None:
    """Every deal's stored state is what its facts give, and the session's money nets to 0."""
    deals = list(session.deals.order_by("number"))
    assert [deal.number for deal in deals] == list(range(1, len(deals) + 1))
    assert sum(deal.status == Deal.Status.OPEN for deal in deals) == 1
    for deal in deals:
        result = scoring.play(deal_facts(deal))
        assert deal.status == result.status.value
        stored = [
            (line.payer_id, line.payee_id, line.amount, line.reason)
            for line in LedgerLine.objects.filter(deal=deal).order_by("position")
        ]
        expected = [
            (line.payer, line.payee, line.amount, line.reason.value)
            for line in (result.ledger if result.closed else ())
        ]
        assert stored == expected
    net: dict[int, Decimal] = {}
    for line in LedgerLine.objects.filter(session=session):
        net[line.payer_id] = net.get(line.payer_id, Decimal(0)) - line.amount
        net[line.payee_id] = net.get(line.payee_id, Decimal(0)) + line.amount
    assert sum(net.values(), Decimal(0)) == 0
