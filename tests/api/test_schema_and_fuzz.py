"""The OpenAPI schema is valid and warning-free; no JSON body makes the API answer 500."""

import pytest
from django.core.management import call_command
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

pytestmark = pytest.mark.django_db


def test_schema_validates_without_warnings(tmp_path):
    schema = tmp_path / "schema.yml"

    call_command("spectacular", "--validate", "--fail-on-warn", "--file", str(schema))

    text = schema.read_text()
    assert "/api/deals/{id}/taps/:" in text
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
