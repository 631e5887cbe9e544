"""Settle up: balances, the fewest transfers, each marked paid in one tap."""

from decimal import Decimal

import pytest
from django.urls import reverse

from tests.views.helpers import htmx, play_deals
from tracker.models import Payment
from tracker.services import (
    deal_correct,
    deal_tap,
    payment_record,
    share_link_create,
    transfer_mark_paid,
)

pytestmark = pytest.mark.django_db


def test_balances_and_transfers(member, table, actor):
    session, players = table
    play_deals(session, players, 1, actor)

    response = member.get(reverse("member:settle", kwargs={"session_id": session.pk}))

    assert [(name, str(net), str(owed)) for name, net, owed in response.context["balances"]] == [
        ("Alice", "1.000", "1.000"),
        ("Ben", "1.000", "1.000"),
        ("Cara", "1.000", "1.000"),
        ("Dev", "-3.000", "-3.000"),
    ]
    transfers = [(t.payer_name, t.payee_name, str(t.amount)) for t in response.context["transfers"]]
    assert transfers == [
        ("Dev", "Alice", "1.000"),
        ("Dev", "Ben", "1.000"),
        ("Dev", "Cara", "1.000"),
    ]
    assert "−3.00" in response.text
    assert "Still to pay: " in response.text


def test_mark_paid_strikes_the_line_and_keeps_the_others(member, table, actor):
    session, players = table
    play_deals(session, players, 1, actor)
    paid_url = reverse("member:paid", kwargs={"session_id": session.pk})
    line = {"payer": players["Dev"].pk, "payee": players["Ben"].pk, "amount": "1.000"}

    response = member.post(paid_url, line, **htmx())

    assert response.status_code == 200
    assert response.text.startswith('<div id="settle"')
    assert [t.paid for t in response.context["transfers"]] == [False, True, False]
    assert "<del><bdi>Dev</bdi> → <bdi>Ben</bdi></del>" in response.text
    payment = Payment.objects.get()

    again = member.post(
        reverse("member:payment_cancel", kwargs={"session_id": session.pk}),
        {"payment": payment.pk},
        **htmx(),
    )
    assert [t.paid for t in again.context["transfers"]] == [False, False, False]
    assert "cancelled by host" in again.text


def test_the_old_undo_form_still_cancels_the_payment(member, table, actor):
    session, players = table
    play_deals(session, players, 1, actor)
    paid_url = reverse("member:paid", kwargs={"session_id": session.pk})
    line = {"payer": players["Dev"].pk, "payee": players["Ben"].pk, "amount": "1.000"}
    member.post(paid_url, line)

    response = member.post(paid_url, {**line, "undo": "1"}, **htmx())

    assert [t.paid for t in response.context["transfers"]] == [False, False, False]
    assert Payment.objects.get().cancelled_at is not None


@pytest.mark.parametrize(
    ("language", "typed"), [("en", "0.40"), ("vi", "0,40"), ("en", ".4"), ("vi", "0.40")]
)
def test_a_part_payment_shows_what_is_left(member, table, actor, language, typed):
    session, players = table
    play_deals(session, players, 1, actor)
    member.cookies["django_language"] = language

    response = member.post(
        reverse("member:payment", kwargs={"session_id": session.pk}),
        {"payer": players["Dev"].pk, "payee": players["Ben"].pk, "amount": typed},
        **htmx(),
    )

    assert response.status_code == 200, response.context["message"]
    ben = next(t for t in response.context["transfers"] if t.payee_name == "Ben")
    assert (ben.amount, ben.paid_so_far, ben.paid) == (Decimal("0.60"), Decimal("0.40"), False)
    assert (">0.40<" if language == "en" else ">0,40<") in response.text


def test_a_correction_after_a_payment_shows_the_refund_on_the_page(member, make_session, actor):
    """Ben → Alice 3.00 marked paid; deal 5 corrected so that Alice lost: the page says
    Alice → Ben 2.00, and the 3.00 paid stays in the payments."""
    session, players = make_session(players=("Alice", "Ben"))
    alice, ben = players["Alice"].pk, players["Ben"].pk
    for loser in ("Alice", "Ben", "Ben", "Ben", "Ben"):
        deal = session.deals.get(status="open")
        for name in ("Ben", "Alice") if loser == "Alice" else ("Alice", "Ben"):
            deal_tap(deal_id=deal.pk, player_id=players[name].pk, actor=actor)
    settle_url = reverse("member:settle", kwargs={"session_id": session.pk})
    member.post(
        reverse("member:paid", kwargs={"session_id": session.pk}),
        {"payer": ben, "payee": alice, "amount": "3.000"},
    )
    deal_correct(deal_id=session.deals.get(number=5).pk, taps=[ben, alice], actor=actor)

    response = member.get(settle_url)

    open_lines = [
        (t.payer_name, t.payee_name, t.amount) for t in response.context["transfers"] if not t.paid
    ]
    assert open_lines == [("Alice", "Ben", Decimal("2.000"))]
    assert [(p.payer_name, p.payee_name, p.amount) for p in response.context["payments"]] == [
        ("Ben", "Alice", Decimal("3.000"))
    ]
    assert "<bdi>Alice</bdi> → <bdi>Ben</bdi>" in response.text


def test_another_payment_to_oneself_is_refused_and_saves_nothing(member, table, actor):
    session, players = table
    play_deals(session, players, 1, actor)

    response = member.post(
        reverse("member:payment", kwargs={"session_id": session.pk}),
        {"payer": players["Ben"].pk, "payee": players["Ben"].pk, "amount": "1"},
    )

    assert response.status_code == 400
    assert "Not saved: Ben cannot pay themselves" in response.text
    assert not Payment.objects.exists()


@pytest.mark.parametrize("amount", ["1.005", "0", "-1", "abc", ""])
def test_a_part_payment_that_is_no_amount_is_refused(member, table, actor, amount):
    session, players = table
    play_deals(session, players, 1, actor)

    response = member.post(
        reverse("member:payment", kwargs={"session_id": session.pk}),
        {"payer": players["Dev"].pk, "payee": players["Ben"].pk, "amount": amount},
    )

    assert response.status_code == 400
    assert 'role="alert"' in response.text
    assert not Payment.objects.exists()


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
    transfer_mark_paid(
        session_id=session.pk,
        payer_id=players["Dev"].pk,
        payee_id=players["Alice"].pk,
        amount=Decimal("1"),
        actor=actor,
    )
    link = share_link_create(session_id=session.pk, role="viewer", actor=actor)

    page = client.get(f"/s/{link.token}/settle/")
    writes = [
        client.post(
            f"/s/{link.token}/settle/{path}/",
            {"payer": players["Dev"].pk, "payee": players["Ben"].pk, "amount": "1.000"},
        )
        for path in ("paid", "payment", "cancel")
    ]

    assert page.status_code == 200
    assert ("Mark paid" in page.text, "Another payment" in page.text) == (False, False)
    assert "host" not in page.text  # a viewer link is not told account names
    assert "a member" in page.text
    assert [response.status_code for response in writes] == [403, 403, 403]


@pytest.mark.parametrize("payments", [1, 12])
def test_settle_page_costs_the_same_however_many_payments(
    member, table, actor, django_assert_num_queries, payments
):
    session, players = table
    play_deals(session, players, 3, actor)
    for _ in range(payments):
        payment_record(
            session_id=session.pk,
            payer_id=players["Ben"].pk,
            payee_id=players["Dev"].pk,
            amount=Decimal("0.01"),
            actor=actor,
        )

    # 1 login session, 2 account, 3 session in reach, 4 balances from the running
    # totals, 5 payments with who recorded and cancelled them, 6 names, 7 the payees'
    # payment details
    with django_assert_num_queries(7):
        response = member.get(reverse("member:settle", kwargs={"session_id": session.pk}))
    assert len(response.context["payments"]) == payments


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


@pytest.mark.parametrize(
    ("language", "typed", "amount"),
    [
        ("en", "2.50", "2.50"),
        ("en", "2,50", "2.50"),
        ("en", "10,000", "10000"),
        ("en", "1,234.56", "1234.56"),
        ("vi", "2,50", "2.50"),
        ("vi", "2.50", "2.50"),
        ("vi", "10.000", "10000"),
        ("vi", "1.234,56", "1234.56"),
        ("en", ".5", "0.5"),
        ("en", "3.000", None),  # three decimals, or thousands grouped the Vietnamese way?
        ("vi", "10,000", None),
        ("en", "1.005", None),
        ("en", "0,500", None),  # a half typed with three decimals, never 500
        ("vi", "0.500", None),
        ("en", "٣", None),
        ("en", "1 000", None),
        ("en", ".", None),
    ],
)
def test_an_amount_is_read_as_the_reader_types_it(language, typed, amount):
    from django.core.exceptions import ValidationError
    from django.utils import translation

    from tracker.views.table_forms import TypedAmountField

    with translation.override(language):
        if amount is None:
            with pytest.raises(ValidationError):
                TypedAmountField().clean(typed)
        else:
            assert TypedAmountField().clean(typed) == Decimal(amount)


def test_the_circle_page_says_which_sessions_still_have_money_open(
    member, circle, make_session, actor
):
    owing, players = make_session()
    play_deals(owing, players, 1, actor)  # Dev owes 1.00 to each of the others
    payment_record(
        session_id=owing.pk,
        payer_id=players["Dev"].pk,
        payee_id=players["Alice"].pk,
        amount=Decimal("1"),
        actor=actor,
    )
    dong, dong_players = make_session(currency="VND", stake="10000")
    play_deals(dong, dong_players, 1, actor)
    paid_up, paid_players = make_session(players=("Alice", "Ben"))
    for name in ("Alice", "Ben"):
        deal_tap(deal_id=paid_up.deals.get().pk, player_id=paid_players[name].pk, actor=actor)
    transfer_mark_paid(
        session_id=paid_up.pk,
        payer_id=paid_players["Ben"].pk,
        payee_id=paid_players["Alice"].pk,
        amount=Decimal("1"),
        actor=actor,
    )

    response = member.get(reverse("circle", kwargs={"circle_id": circle.pk}))

    assert response.context["open_by_currency"] == [
        ("USD", Decimal("2.000")),
        ("VND", Decimal("30000.000")),
    ]
    money = {s.pk: (s.money.settled, s.money.open_amount) for s in response.context["sessions"]}
    assert money == {
        owing.pk: (False, Decimal("2.000")),
        dong.pk: (False, Decimal("30000.000")),
        paid_up.pk: (True, Decimal("0.000")),
    }
    assert "Still to pay:" in response.text
    assert '30,000<span class="amount__currency"> VND</span></span> to pay' in response.text


@pytest.mark.parametrize("sessions", [1, 5])
def test_the_circle_page_costs_the_same_however_many_sessions(
    member, circle, make_session, actor, django_assert_num_queries, sessions
):
    for _ in range(sessions):
        session, players = make_session()
        play_deals(session, players, 2, actor)

    # 1 login session, 2 account, 3 circle, 4 sessions with deal counts, 5 every
    # session's currency, 6 balances from the running totals, 7 payments, 8 players
    with django_assert_num_queries(8):
        response = member.get(reverse("circle", kwargs={"circle_id": circle.pk}))
    assert len(response.context["sessions"]) == sessions
