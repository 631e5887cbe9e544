"""Settle up: balances, the fewest transfers, each marked paid in one tap."""

import pytest
from django.urls import reverse

from tests.views.helpers import htmx, play_deals
from tracker.models import Payment
from tracker.services import share_link_create

pytestmark = pytest.mark.django_db


def test_balances_and_transfers(member, table, actor):
    session, players = table
    play_deals(session, players, 1, actor)

    response = member.get(reverse("member:settle", kwargs={"session_id": session.pk}))

    assert [(name, str(net)) for name, net in response.context["balances"]] == [
        ("Alice", "1.000"),
        ("Ben", "1.000"),
        ("Cara", "1.000"),
        ("Dev", "-3.000"),
    ]
    transfers = [(t.payer_name, t.payee_name, str(t.amount)) for t in response.context["transfers"]]
    assert transfers == [
        ("Dev", "Alice", "1.000"),
        ("Dev", "Ben", "1.000"),
        ("Dev", "Cara", "1.000"),
    ]
    assert "−3.00" in response.text


def test_mark_paid_strikes_the_line_and_keeps_the_others(member, table, actor):
    session, players = table
    play_deals(session, players, 1, actor)
    paid_url = reverse("member:paid", kwargs={"session_id": session.pk})
    line = {"payer": players["Dev"].pk, "payee": players["Ben"].pk, "amount": "1.000"}

    response = member.post(paid_url, line, **htmx())

    assert response.status_code == 200
    assert response.text.startswith('<section id="transfers"')
    assert [t.paid for t in response.context["transfers"]] == [False, True, False]
    assert "<del><bdi>Dev</bdi> → <bdi>Ben</bdi></del>" in response.text

    again = member.post(paid_url, {**line, "undo": "1"}, **htmx())
    assert [t.paid for t in again.context["transfers"]] == [False, False, False]


def test_marking_a_transfer_that_is_not_there_says_so(member, table, actor):
    session, players = table
    play_deals(session, players, 1, actor)

    response = member.post(
        reverse("member:paid", kwargs={"session_id": session.pk}),
        {"payer": players["Alice"].pk, "payee": players["Ben"].pk, "amount": "5"},
    )

    assert response.status_code == 400
    assert 'role="alert"' in response.text


@pytest.mark.parametrize("amount", ["sNaN", "NaN", "-Infinity", "1e999999999", "two", ""])
def test_an_amount_that_is_no_number_is_refused_and_marks_nothing(member, table, actor, amount):
    session, players = table
    play_deals(session, players, 1, actor)

    response = member.post(
        reverse("member:paid", kwargs={"session_id": session.pk}),
        {"payer": players["Dev"].pk, "payee": players["Alice"].pk, "amount": amount},
    )

    assert response.status_code == 400
    assert 'role="alert"' in response.text  # "not in the list", or no transfer of that much
    assert not Payment.objects.exists()


def test_a_viewer_link_sees_but_cannot_mark_paid(client, table, actor):
    session, players = table
    play_deals(session, players, 1, actor)
    link = share_link_create(session_id=session.pk, role="viewer", actor=actor)

    page = client.get(f"/s/{link.token}/settle/")
    response = client.post(
        f"/s/{link.token}/settle/paid/",
        {"payer": players["Dev"].pk, "payee": players["Ben"].pk, "amount": "1.000"},
    )

    assert page.status_code == 200
    assert "Mark paid" not in page.text
    assert response.status_code == 403


@pytest.mark.parametrize("undo", ["", "1"], ids=["mark-paid", "mark-unpaid"])
@pytest.mark.parametrize("field", ["payer", "payee"])
def test_transfer_paid_page_huge_player_id_is_refused_not_a_server_error(
    member, table, undo, field
):
    """An id past what an id column holds is refused by the form (400), never handed to
    the database (on SQLite it would overflow: a 500)."""
    session, players = table
    member.raise_request_exception = False
    sent = {
        "payer": players["Dev"].pk,
        "payee": players["Alice"].pk,
        "amount": "1.00",
        "undo": undo,
        "key": f"huge-{field}-{undo}",
    }
    sent[field] = "9" * 20

    response = member.post(f"/sessions/{session.pk}/settle/paid/", sent)

    assert response.status_code == 400
