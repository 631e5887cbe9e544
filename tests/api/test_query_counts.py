"""Constant cost: tap, deal detail, standings and settlement run the same number of
queries whether the session has 10 deals or 200."""

from __future__ import annotations

import copy

import pytest
from django.db.models.base import ModelState

from tracker.models import Deal, DealEvent, DealPlayer, LedgerLine, Session, Tap
from tracker.services import session_tallies_rebuild

pytestmark = pytest.mark.django_db


def _copies(rows, deal_ids):
    for deal_id in deal_ids:
        for row in rows:
            clone = copy.copy(row)
            clone.pk = None
            clone.deal_id = deal_id
            clone._state = ModelState()
            yield clone


@pytest.fixture
def long_session(start):
    """A session with `filed` filed deals and one open deal after them.

    Deal 1 is played through the API (a 2 cut, then Alice, Cara, Ben out; Dev pays); the
    others are bulk copies of its rows, which is all the reads look at.
    """

    def grow(filed: int):
        table = start(options={"penalties": True})
        template = Deal.objects.get(pk=table.deal)
        table.event(
            template.pk,
            type="two_beaten",
            by=table.p["Ben"],
            owner=table.p["Cara"],
            **{"with": "cutup"},
            black=1,
        )
        table.tap(template.pk, "Alice", "Cara", "Ben")
        template.refresh_from_db()
        Deal.objects.filter(session_id=table.id, status="open").update(number=filed + 1)

        numbers = range(2, filed + 1)
        Deal.objects.bulk_create(
            Deal(
                session_id=table.id,
                number=number,
                status=template.status,
                dealer_id=template.loser_id,
                leader_id=template.winner_id,
                winner_id=template.winner_id,
                loser_id=template.loser_id,
                last_seq=template.last_seq,
                closed_at=template.closed_at,
            )
            for number in numbers
        )
        new_ids = list(
            Deal.objects.filter(session_id=table.id, number__in=numbers).values_list(
                "pk", flat=True
            )
        )
        for model in (DealPlayer, Tap, DealEvent, LedgerLine):
            model.objects.bulk_create(_copies(list(model.objects.filter(deal=template)), new_ids))
        assert Deal.objects.filter(session_id=table.id, status="filed").count() == filed
        # Bulk copies bypass the services, so the running totals are rebuilt from the deals.
        session_tallies_rebuild(session=Session.objects.get(pk=table.id))
        return table, template.pk

    return grow


SIZES = [10, 200]


@pytest.mark.parametrize("filed", SIZES)
def test_tap_query_count_is_constant(long_session, api, django_assert_num_queries, filed):
    table, _ = long_session(filed)
    deal = table.deal
    # 1 token, 2 deal in reach,
    # deal_tap: 3 savepoint, 4 deal FOR UPDATE, 5 deal players, 6 live taps, 7 live events,
    #   8 savepoint, 9 insert tap, 10 set places and points (an open deal has no ledger
    #   and its places only grow), 11 update deal, 12-13 release savepoints,
    # answer: 14 the new tap's not-played; the rest is what the write already knew
    with django_assert_num_queries(14):
        response = api.post(f"/api/deals/{deal}/taps/", {"player": table.p["Alice"]})
    assert response.status_code == 201


@pytest.mark.parametrize("filed", SIZES)
def test_deal_detail_query_count_is_constant(long_session, api, django_assert_num_queries, filed):
    table, first = long_session(filed)
    # 1 token, 2 deal in reach, 3 deal players with names (for the facts and the answer),
    # 4 live taps, 5 their not-played, 6 live events, 7 next deal
    with django_assert_num_queries(7):
        response = api.get(f"/api/deals/{first}/")
    assert response.json()["next_deal"] is not None


@pytest.mark.parametrize("filed", SIZES)
def test_standings_query_count_is_constant(long_session, api, django_assert_num_queries, filed):
    table, _ = long_session(filed)
    # 1 token, 2 session in reach, 3 the running totals with player names
    with django_assert_num_queries(3):
        response = api.get(f"/api/sessions/{table.id}/standings/")
    rows = {row["name"]: row for row in response.json()["rows"]}
    assert (rows["Alice"]["points"], rows["Dev"]["net"]) == (3 * filed, f"{-3 * filed}.00")


@pytest.mark.parametrize("filed", SIZES)
def test_settlement_query_count_is_constant(long_session, api, django_assert_num_queries, filed):
    table, _ = long_session(filed)
    # 1 token, 2 session in reach, 3 money received, 4 money paid, 5 payments, 6 the
    # payees' payment details (none here, so no names for transfer notes)
    with django_assert_num_queries(6):
        response = api.get(f"/api/sessions/{table.id}/settlement/")
    transfers = [(t["from"], t["to"], t["amount"]) for t in response.json()["transfers"]]
    dev, alice, ben = (table.p[name] for name in ("Dev", "Alice", "Ben"))
    # Cara's 2 cut by Ben cancels what Dev pays her, deal after deal.
    assert transfers == [(dev, alice, f"{filed}.00"), (dev, ben, f"{2 * filed}.00")]
