"""Corrections of filed deals: recomputed, audited, ordered by scoring.correct."""

from decimal import Decimal

import pytest

import scoring
from tests.services.helpers import live_taps, open_deal, snapshot, tap_all
from tracker.errors import Conflict, Invalid
from tracker.models import Correction, DealEvent, LedgerLine, Tap
from tracker.services import (
    deal_correct,
    deal_event_record,
    deal_event_remove,
)

pytestmark = pytest.mark.django_db


def test_correction_recomputes_and_keeps_an_audit_record(make_session, actor):
    session, p = make_session()
    deal = open_deal(session)
    tap_all(deal, p, ["Alice", "Cara", "Ben"], actor)
    following = open_deal(session)

    deal_correct(
        deal_id=deal.pk,
        taps=[p["Ben"].pk, p["Cara"].pk, p["Dev"].pk],
        reason="Ben went out first",
        actor=actor,
    )

    deal.refresh_from_db()
    assert deal.loser == p["Alice"]
    assert live_taps(deal) == [("Ben", 1), ("Cara", 2), ("Dev", 3)]
    payers = set(LedgerLine.objects.filter(deal=deal).values_list("payer__name", flat=True))
    assert payers == {"Alice"}
    correction = Correction.objects.get(deal=deal)
    assert correction.reason == "Ben went out first"
    assert correction.before["points"] == {
        str(p["Alice"].pk): 3,
        str(p["Ben"].pk): 1,
        str(p["Cara"].pk): 2,
        str(p["Dev"].pk): 0,
    }
    assert Tap.objects.filter(deal=deal, correction=correction).count() == 3
    following.refresh_from_db()
    assert (following.dealer, following.leader) == (p["Alice"], p["Ben"])


def test_correction_that_leaves_deal_unfinished_is_refused(make_session, actor):
    session, p = make_session()
    deal = open_deal(session)
    tap_all(deal, p, ["Alice", "Cara", "Ben"], actor)
    before = snapshot()

    with pytest.raises(Invalid, match="unfinished"):
        deal_correct(deal_id=deal.pk, taps=[p["Ben"].pk], actor=actor)

    assert snapshot() == before


def test_correction_of_open_deal_is_a_conflict(make_session, actor):
    session, _ = make_session()
    with pytest.raises(Conflict):
        deal_correct(deal_id=open_deal(session).pk, taps=[], actor=actor)


def test_hand_after_filing_under_loser_pays_adds_penalties(make_session, actor):
    session, p = make_session(options=scoring.Options(penalties=True))
    deal = open_deal(session)
    tap_all(deal, p, ["Alice", "Cara", "Ben"], actor)

    hand = scoring.Hand(player=p["Dev"].pk, cards=5, red_twos=1)
    deal_event_record(deal_id=deal.pk, event=hand, actor=actor)

    reasons = list(
        LedgerLine.objects.filter(deal=deal).values_list(
            "payer__name", "payee__name", "amount", "reason"
        )
    )
    assert reasons[-1] == ("Dev", "Alice", Decimal("2.000"), "unused_red_two")
    assert Correction.objects.filter(deal=deal).count() == 1


def test_event_removed_from_filed_deal_is_a_correction(make_session, actor):
    session, p = make_session(options=scoring.Options(penalties=True))
    deal = open_deal(session)
    two = scoring.TwoBeaten(
        by=p["Ben"].pk, owner=p["Cara"].pk, beaten_with=scoring.Beater.BOMB, black=1
    )
    deal_event_record(deal_id=deal.pk, event=two, actor=actor)
    tap_all(deal, p, ["Alice", "Cara", "Ben"], actor)
    event = DealEvent.objects.get(deal=deal)
    assert LedgerLine.objects.filter(deal=deal, reason="two_beaten").count() == 1

    deal_event_remove(deal_id=deal.pk, event_id=event.pk, actor=actor)

    assert LedgerLine.objects.filter(deal=deal, reason="two_beaten").count() == 0
    assert DealEvent.objects.filter(deal=deal, undone_at__isnull=True).count() == 0
    assert Correction.objects.filter(deal=deal).count() == 1


def test_correction_can_add_a_forgotten_guaransheed(make_session, actor):
    session, p = make_session(options=scoring.Options(guaransheed=True))
    deal = open_deal(session)
    tap_all(deal, p, ["Alice", "Cara", "Ben"], actor)

    deal_correct(
        deal_id=deal.pk,
        add_events=[scoring.Guaransheed(player=p["Alice"].pk)],
        reason="Alice had declared",
        actor=actor,
    )

    lines = LedgerLine.objects.filter(deal=deal).values_list("payer__name", "payee__name", "reason")
    assert list(lines)[3:] == [
        ("Ben", "Alice", "guaransheed_won"),
        ("Cara", "Alice", "guaransheed_won"),
        ("Dev", "Alice", "guaransheed_won"),
    ]
    assert live_taps(deal) == [("Alice", 1), ("Cara", 2), ("Ben", 3)]
