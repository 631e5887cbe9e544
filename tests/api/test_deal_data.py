"""A deal's answer is built by hand (`serializers.deal_data`, issue 15, session 12): it is
`DealOut(state).data` to the byte, for every kind of deal a table makes — taps with and
without "not yet played", every kind of event, undo, filed deals with their ledger at a
fractional stake, trading reminders, End match, corrections — in both languages and any
time zone.
"""

from __future__ import annotations

import json
import random

import pytest
from django.utils import translation

import scoring
from tracker import services
from tracker.api.serializers import DealOut, deal_data
from tracker.errors import Conflict, Invalid
from tracker.models import Deal
from tracker.records import read_deal_state

pytestmark = pytest.mark.django_db

OPTIONS = scoring.Options(got_to_get_in=True, guaransheed=True, instant_wins=True, penalties=True)
TRADING = scoring.Options(got_to_get_in=True, guaransheed=True, trading=True)


def one_answer(deal: Deal) -> None:
    state = read_deal_state(Deal.objects.select_related("session").get(pk=deal.pk))
    by_hand, by_drf = deal_data(state), DealOut(state).data
    assert by_hand == by_drf
    assert json.dumps(by_hand, sort_keys=True) == json.dumps(by_drf, sort_keys=True)
    assert list(by_hand) == list(by_drf)  # the same keys in the same order


def some_event(chance: random.Random, players: list[int]) -> scoring.Record:
    one, other = chance.sample(players, 2)
    return chance.choice(
        [
            scoring.TwoBeaten(
                by=one, owner=other, beaten_with=chance.choice(list(scoring.Beater)), black=1
            ),
            scoring.CutupBeaten(by=one, owner=other),
            scoring.Hand(player=one, cards=chance.randint(1, 13), red_twos=chance.randint(0, 1)),
            scoring.Guaransheed(player=one, blind=chance.random() < 0.5),
            scoring.InstantWin(player=one, kind=chance.choice(list(scoring.InstantWinKind))),
        ]
    )


def play_at_random(session, players, actor, chance: random.Random, writes: int) -> None:
    ids = [player.pk for player in players.values()]
    for _ in range(writes):
        deal = session.deals.filter(status=Deal.Status.OPEN).first()
        if deal is None:
            return
        write = chance.choice(["tap", "tap", "tap", "marked tap", "event", "undo"])
        try:
            if write == "tap":
                services.deal_tap(deal_id=deal.pk, player_id=chance.choice(ids), actor=actor)
            elif write == "marked tap":
                one, other = chance.sample(ids, 2)
                services.deal_tap(deal_id=deal.pk, player_id=one, not_played=[other], actor=actor)
            elif write == "event":
                services.deal_event_record(
                    deal_id=deal.pk, event=some_event(chance, ids), actor=actor
                )
            else:
                services.deal_undo(deal_id=deal.pk, actor=actor)
        except (Conflict, Invalid):
            pass  # refused by the rules: nothing changed


@pytest.mark.parametrize("seed", range(4))
def test_every_deal_a_table_makes_answers_as_the_serializer_does(
    make_session, actor, settings, seed
):
    chance = random.Random(seed)
    settings.TIME_ZONE = chance.choice(["UTC", "Asia/Ho_Chi_Minh", "America/New_York"])
    session, players = make_session(options=OPTIONS, stake=chance.choice(["1.00", "2.50", "0.75"]))
    play_at_random(session, players, actor, chance, writes=60)
    deals = list(session.deals.order_by("number"))
    assert any(deal.status == Deal.Status.FILED for deal in deals)
    for language in ("en", "vi"):
        with translation.override(language):
            for deal in deals:
                one_answer(deal)


def test_a_corrected_deal_and_one_ended_answer_as_the_serializer_does(make_session, actor):
    session, p = make_session(options=OPTIONS, stake="2.50")
    first = session.deals.get()
    services.deal_event_record(
        deal_id=first.pk, event=scoring.Hand(player=p["Dev"].pk, cards=7), actor=actor
    )
    for name in ("Ben", "Alice", "Cara"):
        services.deal_tap(deal_id=first.pk, player_id=p[name].pk, actor=actor)
    services.deal_correct(
        deal_id=first.pk,
        taps=[p["Alice"].pk, p["Ben"].pk, p["Cara"].pk],
        reason="order",
        actor=actor,
    )
    second = session.deals.get(status=Deal.Status.OPEN)
    services.deal_tap(deal_id=second.pk, player_id=p["Dev"].pk, actor=actor)
    services.deal_end(deal_id=second.pk, actor=actor)
    for deal in (first, second):
        one_answer(deal)
    assert Deal.objects.get(pk=second.pk).status == Deal.Status.ENDED


def test_a_deal_with_trading_reminders_answers_as_the_serializer_does(make_session, actor):
    session, p = make_session(options=TRADING)
    chance = random.Random(7)
    play_at_random(session, p, actor, chance, writes=40)
    traded = [deal for deal in session.deals.all() if deal.trading]
    assert traded
    for deal in traded:
        one_answer(deal)
