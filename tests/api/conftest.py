"""API test setup: a token-authenticated client for the host (`api`), a session started
through the API (`start`), `db_state()` to show that a refused request changed nothing,
and `at_once()`/`post()` to send requests from real threads released together.
"""

from __future__ import annotations

import threading
from collections.abc import Callable

import pytest
from django.db import connection
from rest_framework.test import APIClient

from tracker import glance, models
from tracker.services import api_token_create

_handlers: dict[bool, object] = {}


class JsonClient(APIClient):
    """An API client that sends JSON bodies (APIClient's default is multipart).

    Clients share one request handler per CSRF mode: building the middleware chain
    costs a quarter of a second (WhiteNoise indexes every static file), and these tests
    make hundreds of clients. The handler holds no per-client state we use.
    """

    def __init__(self, enforce_csrf_checks=False, **defaults):
        super().__init__(enforce_csrf_checks=enforce_csrf_checks, **defaults)
        self.default_format = "json"
        self.handler = _handlers.setdefault(enforce_csrf_checks, self.handler)


def client_with(header: str | None = None, **kwargs) -> JsonClient:
    client = JsonClient(**kwargs)
    if header is not None:
        client.credentials(HTTP_AUTHORIZATION=header)
    return client


def at_once(calls: list[Callable[[], tuple[int, dict]]]) -> list[tuple[int, dict]]:
    """Run the calls in threads released together; their (status, body) in call order.

    Each thread has its own database connection, so the test must be
    `django_db(transaction=True)`: in a test's transaction the threads would not see its rows.
    """
    barrier = threading.Barrier(len(calls))
    results: list = [None] * len(calls)

    def run(index: int) -> None:
        try:
            barrier.wait(timeout=10)
            results[index] = calls[index]()
        except BaseException as error:  # reported by the caller's assertions
            results[index] = (None, {"error": repr(error)})
        finally:
            connection.close()

    threads = [threading.Thread(target=run, args=(index,)) for index in range(len(calls))]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)
    return results


def post(token: str, url: str, body: dict | None = None, **headers) -> Callable:
    """A call for `at_once`: POST the body with the token, answering (status, body)."""

    def call() -> tuple[int, dict]:
        response = client_with(f"Token {token}").post(url, body or {}, **headers)
        return response.status_code, response.json()

    return call


@pytest.fixture
def token(user):
    return api_token_create(user=user).key


@pytest.fixture
def api(token):
    return client_with(f"Token {token}")


@pytest.fixture
def stranger(django_user_model):
    """An account that is not a member of the host's circle."""
    return django_user_model.objects.create_user(username="stranger", password="not-my-table")


@pytest.fixture
def stranger_api(stranger):
    return client_with(f"Token {api_token_create(user=stranger).key}")


class Table:
    """A session started through the API: its JSON, and player ids by name."""

    def __init__(self, api: APIClient, body: dict):
        self.api = api
        self.session = body
        self.id = body["id"]
        self.p = {player["name"]: player["id"] for player in body["players"]}
        self.name = {pk: name for name, pk in self.p.items()}

    @property
    def deal(self) -> int:
        """The open deal's id, read fresh."""
        return self.api.get(f"/api/sessions/{self.id}/").json()["current_deal"]["id"]

    def tap(self, deal: int, *names: str, expect: int = 201) -> dict:
        body = {}
        for name in names:
            response = self.api.post(f"/api/deals/{deal}/taps/", {"player": self.p[name]})
            assert response.status_code == expect, response.json()
            body = response.json()
        return body

    def event(self, deal: int, expect: int = 201, **event) -> dict:
        response = self.api.post(f"/api/deals/{deal}/events/", event)
        assert response.status_code == expect, response.json()
        return response.json()

    def named(self, mapping: dict) -> dict:
        """{player id (str or int): value} -> {name: value}"""
        return {self.name[int(pk)]: value for pk, value in mapping.items()}

    def ledger(self, deal_body: dict) -> list[tuple]:
        return [
            (self.name[line["from"]], self.name[line["to"]], line["amount"], line["reason"])
            for line in deal_body["ledger"]
        ]


@pytest.fixture
def start(api, circle):
    """Start a session through the API; keyword arguments go into the body."""

    def make(players=("Alice", "Ben", "Cara", "Dev"), **body) -> Table:
        response = api.post(
            "/api/sessions/",
            {"circle": circle.pk, "name": "Friday", "players": list(players), **body},
        )
        assert response.status_code == 201, response.json()
        return Table(api, response.json())

    return make


def db_state() -> dict:
    """Everything a request could change, in a comparable form."""
    state: dict = {
        model.__name__: model.objects.count()
        for model in (
            models.Circle,
            models.Player,
            models.Session,
            models.Seat,
            models.ShareLink,
            models.Deal,
            models.DealPlayer,
            models.Tap,
            models.DealEvent,
            models.LedgerLine,
            models.Correction,
            models.Payment,
            models.IdempotencyKey,
            models.Invite,
            models.ApiToken,
        )
    }
    state["deals"] = list(
        models.Deal.objects.order_by("pk").values_list(
            "pk", "status", "last_seq", "winner_id", "loser_id", "dealer_id", "leader_id"
        )
    )
    state["live"] = list(
        models.Tap.objects.filter(undone_at__isnull=True).order_by("pk").values_list("pk")
    ) + list(
        models.DealEvent.objects.filter(undone_at__isnull=True).order_by("pk").values_list("pk")
    )
    state["names"] = list(models.Player.objects.order_by("pk").values_list("name", flat=True))
    state["circles"] = list(models.Circle.objects.order_by("pk").values_list("name", flat=True))
    state["sessions"] = list(models.Session.objects.order_by("pk").values_list("pk", "ended_at"))
    state["tallies"] = list(
        models.StandingTally.objects.order_by("pk").values_list("pk", "points", "deals", "net")
    )
    state["members"] = sorted(
        models.Circle.members.through.objects.values_list("circle_id", "user_id")
    )
    state["invites"] = list(
        models.Invite.objects.order_by("pk").values_list("pk", "uses", "revoked_at")
    )
    state["owners"] = list(models.Circle.objects.order_by("pk").values_list("pk", "owner_id"))
    state["claims"] = list(models.Player.objects.order_by("pk").values_list("pk", "user_id"))
    state["links"] = list(models.ShareLink.objects.order_by("pk").values_list("pk", "revoked_at"))
    state["payments"] = list(
        models.Payment.objects.order_by("pk").values_list("pk", "cancelled_at")
    )
    return state


@pytest.fixture
def long_way(monkeypatch):
    """A callable: `client.get(...)` (or another `method`) answered with the glance turned
    off, as the long way (the view alone) answers it."""

    def ask(client, path, method="get", **extra):
        with monkeypatch.context() as patch:
            patch.setattr(glance, "by_token", lambda *args, **kwargs: None)
            patch.setattr(glance, "by_link", lambda *args, **kwargs: None)
            return getattr(client, method)(path, **extra)

    return ask
