"""What a sheet's Save says it will move: one payment named, several counted (an instant
win's three, with two 40-character names each, made a Save of twelve lines at 320 px that
covered the chips above it: session 25's review)."""

from decimal import Decimal

import pytest
from django.utils import translation

import scoring
from tracker.views.screens.words import save_label

NAMES = {1: "Alice", 2: "Ben", 3: "Cara", 4: "Dev"}
WIN = scoring.Reason.INSTANT_WIN


def line(payer, payee, amount):
    return scoring.LedgerLine(payer=payer, payee=payee, amount=Decimal(amount), reason=WIN)


@pytest.mark.parametrize(
    "gained, lost, said",
    [
        ((), (), "Save · no money moves now"),
        ((line(3, 2, "3"),), (), "Save · Cara pays Ben 3.00 USD"),
        ((), (line(3, 2, "3"),), "Save · Cara no longer pays Ben 3.00 USD"),
        (
            (line(1, 2, "3"), line(3, 2, "3"), line(4, 2, "3")),
            (),
            "Save · 3 players pay Ben 3.00 USD each",
        ),
        ((line(1, 2, "3"), line(3, 2, "6")), (), "Save · 2 players pay Ben, 9.00 USD in all"),
        ((line(1, 2, "3"), line(3, 4, "6")), (), "Save · 2 payments, 9.00 USD in all"),
        (
            (line(1, 2, "3"),),
            (line(1, 3, "2"), line(4, 3, "2")),
            "Save · Alice pays Ben 3.00 USD · 2 players no longer pay Cara, 4.00 USD in all",
        ),
        ((), (line(1, 3, "2"), line(4, 2, "2")), "Save · 2 payments fewer, 4.00 USD in all"),
    ],
)
def test_one_payment_is_named_and_several_are_counted(gained, lost, said):
    preview = scoring.Preview(gained=gained, lost=lost)

    with translation.override("en"):
        assert save_label(preview, NAMES, "USD") == said


def test_several_payments_are_counted_in_vietnamese_too():
    preview = scoring.Preview(
        gained=(line(1, 2, "10000"), line(3, 2, "10000"), line(4, 2, "10000"))
    )

    with translation.override("vi"):
        assert save_label(preview, NAMES, "VND") == "Lưu · 3 người trả Ben 10.000 VND mỗi người"


def test_one_player_paying_for_two_reasons_is_one_payment():
    """A ledger line a reason: Ben's hand, a card left and an unused black 2, is two lines
    from Ben to Alice. Counted as lines, Save said "2 players pay Alice 0.50 USD each"
    (the review of session 25)."""
    preview = scoring.Preview(
        gained=(
            scoring.LedgerLine(2, 1, Decimal("0.50"), scoring.Reason.CARDS_LEFT),
            scoring.LedgerLine(2, 1, Decimal("0.50"), scoring.Reason.UNUSED_BLACK_TWO),
            scoring.LedgerLine(3, 1, Decimal("0.50"), scoring.Reason.CARDS_LEFT),
        ),
        lost=(
            scoring.LedgerLine(4, 1, Decimal("1"), scoring.Reason.CARDS_LEFT),
            scoring.LedgerLine(4, 1, Decimal("1"), scoring.Reason.UNUSED_RED_TWO),
        ),
    )

    with translation.override("en"):
        said = save_label(preview, NAMES, "USD")

    assert said == (
        "Save · 2 players pay Alice, 1.50 USD in all · Dev no longer pays Alice 2.00 USD"
    )
    with translation.override("en"):
        assert save_label(scoring.Preview(gained=preview.gained[:2]), NAMES, "USD") == (
            "Save · Ben pays Alice 1.00 USD"
        )


@pytest.mark.django_db
def test_the_hand_sheet_s_save_says_one_player_for_one_hand(member, make_session):
    from django.urls import reverse

    from scoring import Options
    from tests.views.helpers import htmx, open_deal

    session, players = make_session(
        format="winner_takes_all",
        stake_rule="per_card",
        stake="0.50",
        options=Options(penalties=True),
    )
    member.post(
        reverse("member:tap_player", kwargs={"session_id": session.pk}),
        {"deal": open_deal(session).pk, "player": players["Alice"].pk, "key": "t1"},
        **htmx(),
    )
    hand = {
        "type": "hand",
        "deal": open_deal(session).pk,
        "player": players["Ben"].pk,
        "cards": 1,
        "black_twos": 1,
        "key": "hand-1",
    }

    said = member.get(
        reverse("member:event_preview", kwargs={"session_id": session.pk}), hand, **htmx()
    ).content.decode()

    assert "Save · Ben pays Alice 1.00 USD" in said  # a card left and an unused black 2
