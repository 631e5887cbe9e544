"""The settlement's answer is built by hand (`settlement.settlement_data`, issue 15): it is
`SettlementOut(...).data` to the byte, as the serializer read it before, for the
settlements a table makes — filed deals at a fractional stake, part payments, transfers
paid in full and cancelled, change due, payees with a bank account (a VietQR code, with
the amount in it or not), a payment link (with the amount in it or not), both or
neither, in VND and other currencies — for a member, the scorer link and a viewer link,
in both languages and any time zone. And the payees' details and the players' names,
read in one statement written by hand (`selectors.settlement._names_and_details`), are
what the ORM reads.
"""

from __future__ import annotations

import json
import random
from dataclasses import asdict
from decimal import ROUND_DOWN, Decimal

import pytest
from django.utils import translation

import scoring
from scoring import vietqr
from tests.api.test_deal_data import OPTIONS, play_at_random
from tests.conftest import values
from tracker import selectors
from tracker.access import Actor, sees_account_names
from tracker.api.settlement import SettlementOut, settlement_data
from tracker.errors import Conflict, Invalid
from tracker.models import Deal, PaymentDetails, Player
from tracker.selectors.settlement import _names_and_details
from tracker.services import (
    deal_tap,
    payment_cancel,
    payment_details_set,
    payment_record,
    share_link_create,
    transfer_mark_paid,
    transfer_mark_unpaid,
)

pytestmark = pytest.mark.django_db

TWO_PACKS = scoring.Options(got_to_get_in=True, guaransheed=True, penalties=True)
NAMES = ("Nguyễn Thị Phương Thảo", "Ben", "Cara", "Dev", "Én", "Phúc")
BANKS = sorted(vietqr.BANKS_BY_BIN)
LINKS = (
    "https://paypal.me/{handle}",  # the amount in the link, any currency
    "https://venmo.com/u/{handle}",  # the amount in the link in USD
    "https://revolut.me/{handle}",  # opened as it is
    "https://me.momo.vn/{handle}",
)


def payment_rows(payments, actor) -> list[dict]:
    """What `PaymentOut` reads for each payment (the serializer's input, as the API gave
    it before the answer was built by hand); account names only for a member asking."""
    shown = sees_account_names(actor)

    def account(user):
        return user.get_username() if shown and user is not None else None

    return [
        {
            "id": payment.pk,
            "payer_id": payment.payer_id,
            "payee_id": payment.payee_id,
            "amount": Decimal(payment.amount),
            "paid_at": payment.paid_at,
            "recorded_by": account(payment.recorded_by),
            "recorded_via_id": payment.recorded_via_id,
            "cancelled": payment.cancelled_at is not None,
            "cancelled_at": payment.cancelled_at,
            "cancelled_by": account(payment.cancelled_by),
            "cancelled_via_id": payment.cancelled_via_id,
        }
        for payment in payments
    ]


def serializer_input(session, settlement, actor) -> dict:
    """What `settlement_data` gave `SettlementOut` to read before it was built by hand."""
    players = sorted({*settlement.balances, *settlement.owed})
    pay = selectors.session_pay_options(session, actor, settlement.transfers)
    return {
        "currency": session.currency,
        "settled": settlement.settled,
        "open": settlement.open_amount,
        "balances": [
            {
                "player": player,
                "net": settlement.balances.get(player, 0),
                "owed": settlement.owed.get(player, 0),
            }
            for player in players
        ],
        "transfers": [
            {
                **asdict(transfer),
                "pay": None if transfer.paid else pay.get((transfer.payer, transfer.payee)),
            }
            for transfer in settlement.transfers
        ],
        "payments": payment_rows(settlement.payments, actor),
    }


def same_keys(by_hand, by_drf, where="answer") -> None:
    """The same keys in the same order, at every level."""
    assert type(by_hand) in (dict, list, str, int, bool, type(None)), (where, by_hand)
    if isinstance(by_drf, dict):
        assert list(by_hand) == list(by_drf), where
        for key in by_drf:
            same_keys(by_hand[key], by_drf[key], f"{where}.{key}")
    elif isinstance(by_drf, list):
        assert len(by_hand) == len(by_drf), where
        for number, (one, other) in enumerate(zip(by_hand, by_drf, strict=True)):
            same_keys(one, other, f"{where}[{number}]")
    else:
        assert type(by_hand) is type(by_drf), (where, by_hand, by_drf)


def one_answer(session, actor) -> dict:
    settlement = selectors.session_settlement(session)
    by_hand = settlement_data(session, settlement, actor)
    by_drf = SettlementOut(serializer_input(session, settlement, actor)).data
    assert by_hand == by_drf
    assert json.dumps(by_hand, sort_keys=True) == json.dumps(by_drf, sort_keys=True)
    assert json.dumps(by_hand) == json.dumps(by_drf)  # the same order too
    same_keys(by_hand, by_drf)
    return by_hand


def answers_alike(session, readers) -> list[dict]:
    answers = []
    for language in ("en", "vi"):
        with translation.override(language):
            answers += [one_answer(session, reader) for reader in readers]
    return answers


def some_details(chance: random.Random, player: Player, actor: Actor) -> None:
    """A bank account, a payment link, both, or nothing."""
    kind = chance.choice(["bank", "link", "both", "none", "none"])
    bank = {}
    if kind in ("bank", "both"):
        bank = {
            "bank_bin": chance.choice(BANKS),
            "account_number": "".join(chance.choices("0123456789", k=chance.randint(6, 19))),
            "account_name": chance.choice(["", "NGUYEN THI THAO", "BEN SMITH"]),
        }
    link = ""
    if kind in ("link", "both"):
        link = chance.choice(LINKS).format(handle=f"player{player.pk}")
    if bank or link:
        payment_details_set(player=player, link=link, actor=actor, **bank)


def pay_at_random(session, writers, chance: random.Random, writes: int) -> None:
    """Part payments, transfers paid in full and cancelled, payments cancelled, change
    due: by a member or the scorer link."""
    ids = [seat.player_id for seat in session.seats.all()]
    for _ in range(writes):
        actor = chance.choice(writers)
        settlement = selectors.session_settlement(session)
        open_ones = settlement.open_transfers
        paid = [transfer for transfer in settlement.transfers if transfer.paid]
        standing = [payment for payment in settlement.payments if payment.cancelled_at is None]
        write = chance.choice(["part", "part", "full", "full", "unpaid", "cancel", "change"])
        try:
            if write == "part" and open_ones:
                transfer = chance.choice(open_ones)
                part = (transfer.amount * Decimal(chance.random())).quantize(
                    Decimal("0.01"), ROUND_DOWN
                )
                if part > 0:
                    payment_record(
                        session_id=session.pk,
                        payer_id=transfer.payer,
                        payee_id=transfer.payee,
                        amount=part,
                        actor=actor,
                    )
            elif write in ("full", "unpaid") and (open_ones if write == "full" else paid):
                transfer = chance.choice(open_ones if write == "full" else paid)
                mark = transfer_mark_paid if write == "full" else transfer_mark_unpaid
                mark(
                    session_id=session.pk,
                    payer_id=transfer.payer,
                    payee_id=transfer.payee,
                    amount=transfer.amount,
                    actor=actor,
                )
            elif write == "cancel" and standing:
                payment_cancel(
                    session_id=session.pk, payment_id=chance.choice(standing).pk, actor=actor
                )
            elif write == "change":
                payer, payee = chance.sample(ids, 2)
                payment_record(
                    session_id=session.pk,
                    payer_id=payer,
                    payee_id=payee,
                    amount=Decimal(chance.randint(1, 500)) / 100,
                    actor=actor,
                )
        except (Conflict, Invalid):
            pass  # refused by the rules: nothing changed


@pytest.mark.parametrize("seed", range(6))
def test_settlements_a_table_makes_answer_as_the_serializer_does(
    make_session, actor, settings, seed
):
    chance = random.Random(seed)
    settings.TIME_ZONE = chance.choice(["UTC", "Asia/Ho_Chi_Minh", "America/New_York"])
    currency = ("VND", "USD", "EUR")[seed % 3]
    stake = chance.choice(
        ["1000", "2500", "0.75", "1000.50"]
        if currency == "VND"
        else ["1.00", "2.50", "0.75", "0.05"]
    )
    seated = chance.choice([3, 4, 5, 6])
    session, players = make_session(
        players=NAMES[:seated],
        options=OPTIONS if seated <= 4 else TWO_PACKS,  # two packs have no instant wins
        stake=stake,
        currency=currency,
    )
    scorer = Actor(link=share_link_create(session_id=session.pk, role="scorer", actor=actor))
    viewer = Actor(link=share_link_create(session_id=session.pk, role="viewer", actor=actor))
    readers = (actor, scorer, viewer)
    answers = answers_alike(session, readers)  # nothing filed yet: settled

    for player in players.values():
        some_details(chance, player, actor)
    for round_ in range(4):
        play_at_random(session, players, actor, chance, writes=25)
        answers += answers_alike(session, readers)
        pay_at_random(session, (actor, scorer), chance, writes=8 + 4 * round_)
        answers += answers_alike(session, readers)
    assert session.deals.filter(status=Deal.Status.FILED).exists()

    transfers = [transfer for answer in answers for transfer in answer["transfers"]]
    payments = [payment for answer in answers for payment in answer["payments"]]
    assert any(answer["settled"] for answer in answers)
    assert not all(answer["settled"] for answer in answers)
    assert any(transfer["paid"] for transfer in transfers)
    assert any(transfer["paid_so_far"] != "0.00" for transfer in transfers)
    assert any(payment["cancelled"] for payment in payments)
    assert any(payment["recorded_by"] is not None for payment in payments)
    assert any(payment["recorded_via"] is not None for payment in payments)


def test_every_way_to_pay_answers_as_the_serializer_does(make_session, actor):
    """VietQR with the amount (whole dong) and without (a fraction of a dong), PayPal.me
    and Venmo with the amount and without (Venmo not in US dollars), a
    payee whose details give no way to pay in this currency; to the member and the scorer
    link, never to the viewer link."""
    thao = NAMES[0]
    answers = []
    for currency, stake in (("VND", "2000"), ("VND", "0.5"), ("USD", "1.00"), ("EUR", "0.75")):
        session, p = make_session(players=NAMES, stake=stake, currency=currency)
        scorer = Actor(link=share_link_create(session_id=session.pk, role="scorer", actor=actor))
        viewer = Actor(link=share_link_create(session_id=session.pk, role="viewer", actor=actor))
        bank = {"bank_bin": BANKS[0], "account_number": "0011001932418"}
        payment_details_set(player=p[thao], account_name="NGUYEN THI THAO", actor=actor, **bank)
        payment_details_set(player=p["Dev"], link="https://venmo.com/dev", actor=actor, **bank)
        payment_details_set(player=p["Cara"], link="https://www.paypal.me/cara", actor=actor)
        payment_details_set(player=p["Én"], link="https://revolut.me/en", actor=actor)
        # Thảo, Dev and Cara win a deal each; Ben, Én and Phúc lose one each and pay.
        for winner, loser in ((thao, "Ben"), ("Dev", "Én"), ("Cara", "Phúc")):
            deal = session.deals.get(status=Deal.Status.OPEN)
            tapped = [winner, *(name for name in NAMES if name not in (winner, loser))]
            for name in tapped:
                deal_tap(deal_id=deal.pk, player_id=p[name].pk, actor=actor)
        answers += answers_alike(session, (actor, scorer, viewer))
        assert session.deals.filter(status=Deal.Status.FILED).count() == 3

    transfers = [transfer for answer in answers for transfer in answer["transfers"]]
    pays = [transfer["pay"] for transfer in transfers if transfer["pay"] is not None]
    assert any(pay["vietqr"] and pay["vietqr_has_amount"] for pay in pays)
    assert any(pay["vietqr"] and not pay["vietqr_has_amount"] for pay in pays)
    assert any(pay["vietqr"] is None and pay["bank"] == "" for pay in pays)
    assert any(pay["link"] and pay["link_has_amount"] for pay in pays)
    assert any(pay["link"] and not pay["link_has_amount"] for pay in pays)
    assert any(pay["link"] is None for pay in pays)
    assert any(transfer["pay"] is None for transfer in transfers)


@pytest.mark.parametrize("seed", range(4))
def test_the_payees_details_and_names_are_read_as_the_orm_reads_them(
    make_session, actor, django_assert_num_queries, seed
):
    chance = random.Random(seed)
    session, players = make_session(players=NAMES, stake="1000", currency="VND")
    for player in players.values():
        some_details(chance, player, actor)
    ids = [player.pk for player in players.values()]
    for _ in range(6):
        parties = set(chance.sample(ids, chance.randint(1, len(ids))))
        payees = set(chance.sample(sorted(parties), chance.randint(0, len(parties))))
        with django_assert_num_queries(1):
            names, details = _names_and_details(parties, payees)
        assert names == dict(Player.objects.filter(pk__in=parties).values_list("pk", "name"))
        by_orm = PaymentDetails.objects.filter(player_id__in=payees)
        assert {pk: values(row) for pk, row in details.items()} == {
            row.player_id: values(row) for row in by_orm
        }
        assert all(type(row) is PaymentDetails for row in details.values())


def test_pay_options_read_once_or_not_at_all(make_session, actor, django_assert_num_queries):
    session, p = make_session(stake="1000", currency="VND")
    viewer = Actor(link=share_link_create(session_id=session.pk, role="viewer", actor=actor))
    with django_assert_num_queries(0):  # nothing owed: nothing to read
        assert selectors.session_pay_options(session, actor, []) == {}
    deal = session.deals.get()
    for name in ("Alice", "Ben", "Cara"):
        deal_tap(deal_id=deal.pk, player_id=p[name].pk, actor=actor)
    payment_details_set(player=p["Alice"], link="https://paypal.me/alice", actor=actor)
    transfers = selectors.session_settlement(session).transfers
    with django_assert_num_queries(0):  # a viewer link never sees them
        assert selectors.session_pay_options(session, viewer, transfers) == {}
    # The payees' details and the names for the transfer notes: one statement.
    with django_assert_num_queries(1):
        options = selectors.session_pay_options(session, actor, transfers)
    assert [option.link for option in options.values()] == ["https://paypal.me/alice/1000.00VND"]
