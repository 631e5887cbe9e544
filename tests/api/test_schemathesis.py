"""schemathesis against the app's own OpenAPI schema (issue 5 §3): every operation, valid
and invalid inputs (all generation modes), a bounded number of examples with a fixed seed.

Every built-in check runs: no answer is a 5xx; every answer matches the schema (status
code, content type, headers, body); a request the schema forbids is refused
(`negative_data_rejection`); a request the schema allows gets through the API's input
checks (`positive_data_acceptance`, with one allowance below).

The schema is fetched from /api/schema/ through the WSGI app, and requests go through the
same app, as a host who owns a circle with a session in progress. Integer path ids are
pointed at the host's real objects, so the views' code runs rather than 404s; any other
id gets the API's JSON 404, which every operation documents.

The allowance: a request can be well formed and still break a rule of the game that no
schema states, such as a player who is not at this table, a transfer that is not in the
settlement, nothing to undo, a wrong password. The services refuse those with 400 and one
sentence, without `fields`. A 400 *with* `fields` comes from the serializers, and means
the schema allowed something they refuse, so it still fails
(`positive_data_passes_validation`).

Tests run with throttling off, so the documented 429 is checked on its own: a second
write, and a second token request, in a minute with a rate of one.
"""

from __future__ import annotations

import re
import uuid

import pytest
import schemathesis
from django.core.cache import caches
from django.core.wsgi import get_wsgi_application
from hypothesis import HealthCheck, settings
from schemathesis.checks import positive_data_acceptance

from tracker import services
from tracker.api.schema import IDEMPOTENCY_KEY_PATTERN
from tracker.services import api_token_create

pytestmark = pytest.mark.django_db(transaction=True)

# Loaded at collection (generating the schema needs no database). Not through
# `schemathesis.pytest.from_fixture`: its lazy loader sets `Function._nodeid`, which
# pytest 9 no longer has.
schema = schemathesis.openapi.from_wsgi("/api/schema/", get_wsgi_application())

PATH_KIND = re.compile(r"^/api/v1/([a-z-]+)/\{id\}")
SIGN_OUT = "/api/v1/auth/sign-out/"
IDEMPOTENCY_KEY = "Idempotency-Key"


def routable(value: object) -> bool:
    """Whether Django's `<int:...>` converter matches it: a whole number, not negative."""
    return isinstance(value, int) and not isinstance(value, bool) and value >= 0


def rule_refusal(response) -> bool:
    """A 400 from the services: one sentence, no field-by-field messages."""
    if response.status_code != 400:
        return False
    body = response.json()
    return isinstance(body, dict) and "fields" not in body


def positive_data_passes_validation(ctx, response, case):
    """schemathesis' `positive_data_acceptance`, except for a rule of the game."""
    if rule_refusal(response):
        return None
    return positive_data_acceptance(ctx, response, case)


@pytest.fixture
def host(user, circle, actor):
    session = services.session_create(
        circle=circle, name="Friday", players=["Alice", "Ben", "Cara", "Dev"], actor=actor
    )
    link = services.share_link_create(session_id=session.pk, role="viewer", actor=actor)
    invite = services.invite_create(circle=circle, actor=actor, max_uses=None)
    return {
        "user": user,
        "auth": {"Authorization": f"Token {api_token_create(user=user).key}"},
        "ids": {
            "invites": invite.pk,
            "circles": circle.pk,
            "players": circle.players.order_by("pk").first().pk,
            "sessions": session.pk,
            "share-links": link.pk,
            "deals": session.deals.get().pk,
        },
    }


@schema.parametrize()
@settings(
    max_examples=5,
    derandomize=True,
    deadline=None,
    database=None,
    suppress_health_check=list(HealthCheck),
)
def test_api_matches_its_schema(case, host):
    path_ids = case.path_parameters or {}
    kind = PATH_KIND.match(case.operation.path)
    if kind and routable(path_ids.get("id")):
        path_ids["id"] = host["ids"][kind.group(1)]
    key = (case.headers or {}).get(IDEMPOTENCY_KEY)
    if isinstance(key, str) and re.fullmatch(IDEMPOTENCY_KEY_PATTERN, key):
        # A fresh key, so one example's key is not reused by the next with another body
        # (that is a 422 by design). A key the schema forbids is left for the API to refuse.
        case.headers[IDEMPOTENCY_KEY] = str(uuid.uuid4())
    headers = host["auth"]
    if case.operation.path == SIGN_OUT:  # it revokes the token it is sent with: not the host's
        headers = {"Authorization": f"Token {api_token_create(user=host['user']).key}"}
    case.call_and_validate(
        headers=headers,
        excluded_checks=[positive_data_acceptance],
        additional_checks=[positive_data_passes_validation],
    )


@pytest.fixture
def throttled(settings):
    """One request a minute each for sign-in and for writes."""
    settings.REST_FRAMEWORK = {
        **settings.REST_FRAMEWORK,
        "DEFAULT_THROTTLE_RATES": {"auth": "1/min", "writes": "1/min"},
    }
    caches["throttle"].clear()
    yield
    caches["throttle"].clear()


@pytest.mark.parametrize(
    ("path", "body", "first"),
    [
        ("/api/v1/circles/", {"name": "Thursday"}, 201),
        ("/api/v1/auth/token/", {"username": "host", "password": "table-of-four"}, 200),
    ],
)
def test_a_throttled_request_matches_its_schema(host, throttled, path, body, first):
    case = schema[path]["POST"].Case(body=body, media_type="application/json")

    assert case.call(headers=host["auth"]).status_code == first
    response = case.call(headers=host["auth"])

    assert response.status_code == 429
    case.validate_response(response, headers=host["auth"])
