# ruff: noqa: F811  (the API and page fixtures are imported from their conftest.py)
"""Session 26's review (made in session 27): what the session's diff (a25be24..7d7805d) got
wrong in the API's closed bodies. Each test's docstring says what is wrong and what a
client meets. The stake's and the running totals' findings are tested beside their
kind (tests/views/test_sessions.py, tests/views/test_settle.py, tests/api/test_bad_input.py)."""

import pytest

from tests.api.conftest import api, start, token  # noqa: F401 (fixtures)

pytestmark = pytest.mark.django_db


# --- Closed request bodies: `tracker.api.fields.ClosedInput` -------------------------------


def test_payment_details_sent_back_as_shown_are_taken(api, start):
    """docs/api.md: "a field the API only shows ... is known and ignored, so an object sent
    back as it was shown is taken". `PaymentDetailsIO` is closed but the answer of GET
    (`PaymentDetailsOut`) adds `player`, `bank` and `updated_at`: a client that reads the
    details, changes the link and PUTs the object back (what a PUT is for, and what worked
    before this session) now gets 400 "player: no such field"."""
    table = start(players=("Alice", "Ben"))
    url = f"/api/players/{table.p['Alice']}/payment-details/"
    shown = api.get(url).json()

    response = api.put(url, {**shown, "link": "https://paypal.me/alice"})

    assert response.status_code == 200, response.json()
    assert response.json()["link"] == "https://paypal.me/alice"


def test_request_bodies_in_the_schema_do_not_carry_closed_input_s_notes(api):
    """drf-spectacular describes a component by the first docstring up its classes, so
    every request body without one of its own (TapInput, TokenInput, PaymentInput, the
    events...) and PaymentDetailsOut is now described, in /api/docs/, by ClosedInput's
    notes for developers ("a correction sent as `remove_events` ... `tracker.api.schema`").
    Before this session they had no description."""
    schemas = api.get("/api/schema/", HTTP_ACCEPT="application/json").json()["components"][
        "schemas"
    ]

    described = sorted(
        name
        for name, schema in schemas.items()
        if "tracker.api.schema" in schema.get("description", "")
    )
    assert described == [], described
