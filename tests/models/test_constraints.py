"""The database's own last line: constraints that hold whatever the services do."""

from decimal import Decimal

import pytest
from django.db import IntegrityError, transaction

from tests.services.helpers import open_deal, tap_all
from tracker.models import LedgerLine, Session, Tap

pytestmark = pytest.mark.django_db


def test_database_refuses_two_live_taps_in_one_place(make_session, actor):
    session, p = make_session()
    deal = open_deal(session)
    tap_all(deal, p, ["Alice"], actor)

    with pytest.raises(IntegrityError), transaction.atomic():
        Tap.objects.create(deal=deal, seq=99, player=p["Ben"], place=1)


def test_database_refuses_second_live_tap_of_a_player(make_session, actor):
    session, p = make_session()
    deal = open_deal(session)
    tap_all(deal, p, ["Alice"], actor)

    with pytest.raises(IntegrityError), transaction.atomic():
        Tap.objects.create(deal=deal, seq=99, player=p["Alice"], place=2)


def test_database_refuses_non_positive_amounts(make_session, actor):
    session, p = make_session()
    deal = open_deal(session)
    with pytest.raises(IntegrityError), transaction.atomic():
        LedgerLine.objects.create(
            deal=deal,
            session=session,
            position=1,
            payer=p["Ben"],
            payee=p["Alice"],
            amount=0,
            reason="loser_pays",
        )


def test_database_refuses_non_positive_stake(make_session):
    session, _ = make_session()
    with pytest.raises(IntegrityError), transaction.atomic():
        Session.objects.filter(pk=session.pk).update(stake=Decimal("0"))
