"""The OpenAPI schema is valid, warning-free and says what the API does (throttling,
Idempotency-Key, strict paging); no JSON body makes the API answer 500."""

import json

import pytest
from django.core.management import call_command
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

pytestmark = pytest.mark.django_db


def test_schema_validates_without_warnings(tmp_path):
    schema = tmp_path / "schema.yml"

    call_command("spectacular", "--validate", "--fail-on-warn", "--file", str(schema))

    text = schema.read_text()
    assert "/api/v1/deals/{id}/taps/:" in text
    assert "Idempotency-Key" in text
    assert "shareLink" in text


def test_schema_and_docs_are_served(api):
    assert api.get("/api/schema/").status_code == 200
    assert api.get("/api/docs/").status_code == 200


FIELDS = [
    "type", "player", "players", "not_played", "loser", "by", "owner", "with", "black", "red",
    "cards", "black_twos", "red_twos", "cutups", "bombs", "blind", "approved", "kind",
    "circle", "name", "stake", "currency", "format", "stake_rule", "hand_size", "options",
    "taps", "reason", "add_events", "from", "to", "amount", "role",
]  # fmt: skip
SCALARS = (
    st.none()
    | st.booleans()
    | st.integers(min_value=-(2**70), max_value=2**70)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=12)
    | st.sampled_from(["two_beaten", "hand", "guaransheed", "instant_win", "cutup_beaten", "1.5"])
)
JSON = st.recursive(
    SCALARS,
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=6), inner, max_size=4)
    ),
    max_leaves=8,
)
BODIES = st.dictionaries(st.sampled_from(FIELDS), JSON, max_size=8) | JSON


@pytest.fixture
def urls(start, circle):
    table = start(options={"penalties": True, "guaransheed": True})
    filed = table.deal
    table.tap(filed, "Alice", "Cara", "Ben")
    open_deal = table.deal
    return [
        "/api/circles/",
        f"/api/circles/{circle.pk}/players/",
        "/api/sessions/",
        f"/api/sessions/{table.id}/settlement/paid/",
        f"/api/deals/{open_deal}/taps/",
        f"/api/deals/{open_deal}/events/",
        f"/api/deals/{filed}/events/",
        f"/api/deals/{filed}/correction/",
        f"/api/sessions/{table.id}/share-links/",
    ]


@settings(
    max_examples=120,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(body=BODIES, which=st.integers(min_value=0, max_value=8))
def test_no_json_body_gets_a_500(api, urls, body, which):
    response = api.post(urls[which], body, format="json")

    assert response.status_code < 500, (urls[which], body, response.content)
    if response.status_code >= 400:
        assert response.json()["detail"].endswith("."), response.json()


@pytest.fixture
def three_sessions(make_session):
    return [make_session()[0] for _ in range(3)]


def test_page_size_picks_how_many_a_page_holds(api, three_sessions):
    first = api.get("/api/sessions/?page_size=2").json()
    last = api.get("/api/sessions/?page_size=2&page=2").json()

    assert (first["count"], len(first["results"]), first["previous"]) == (3, 2, None)
    assert first["next"].endswith("/api/sessions/?page=2&page_size=2")
    assert (len(last["results"]), last["next"]) == (1, None)


@pytest.mark.parametrize(
    ("query", "detail"),
    [
        ("page_size=0", "page_size: Send a whole number, from 1 to 200."),
        ("page_size=abc", "page_size: Send a whole number, from 1 to 200."),
        ("page_size=-5", "page_size: Send a whole number, from 1 to 200."),
        ("page_size=201", "page_size: Send a whole number, from 1 to 200."),
        ("page_size=", "page_size: Send a whole number, from 1 to 200."),
        ("page=0", "page: Send a whole number, 1 or more."),
        ("page=last", "page: Send a whole number, 1 or more."),
    ],
)
def test_a_page_or_page_size_out_of_range_is_refused(api, three_sessions, query, detail):
    response = api.get(f"/api/sessions/?{query}")

    assert response.status_code == 400
    assert response.json()["detail"] == detail


def test_a_page_past_the_end_is_not_found(api, three_sessions):
    response = api.get("/api/sessions/?page=3&page_size=2")

    assert response.status_code == 404
    assert response.json() == {"code": "not_found", "detail": "There is no page 3 in this list."}


def test_every_write_documents_throttling_and_its_idempotency_key(tmp_path):
    call_command("spectacular", "--format", "openapi-json", "--file", str(tmp_path / "s.json"))
    schema = json.loads((tmp_path / "s.json").read_text())
    operations = [
        (path, method, operation)
        for path, item in schema["paths"].items()
        for method, operation in item.items()
    ]

    for path, method, operation in operations:
        headers = {p["name"] for p in operation.get("parameters", []) if p["in"] == "header"}
        throttled = operation["responses"].get("429", {})
        if method == "get":
            assert "429" not in operation["responses"], path
        elif path == "/api/v1/auth/token/":
            assert "Idempotency-Key" not in headers
            assert "Retry-After" in throttled["headers"]
        else:
            assert "Idempotency-Key" in headers, (method, path)
            assert "Retry-After" in throttled["headers"], (method, path)
