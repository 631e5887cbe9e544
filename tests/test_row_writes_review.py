# ruff: noqa: F811  (the API fixtures are imported from tests/api/conftest.py)
"""Review of `tracker.row_writes.insert_all` (session 20): the rows it stores beside the
ORM's `bulk_create`, on both databases, and a filing tap's seats and ledger through the
API beside what `bulk_create` stored there before."""

from __future__ import annotations

from decimal import Decimal

import pytest
from django.db import IntegrityError, connection, transaction
from django.test.utils import CaptureQueriesContext

from tests.api.conftest import api, start, token  # noqa: F401 - fixtures
from tests.conftest import values
from tracker.models import Deal, DealPlayer, LedgerLine
from tracker.row_writes import MOST_ROWS_AT_ONCE, insert_all

pytestmark = pytest.mark.django_db


def _lines(deal, p, first: int, count: int) -> list[LedgerLine]:
    names = ["Ben", "Cara", "Dev"]
    return [
        LedgerLine(
            deal=deal,
            session_id=deal.session_id,
            position=first + number,
            payer_id=p[names[number % 3]].pk,
            payee_id=p["Alice"].pk,
            amount=Decimal("0.125") * (number + 1),
            reason=LedgerLine.Reason.LOSER_PAYS,
        )
        for number in range(count)
    ]


@pytest.mark.parametrize("count", [1, 2, MOST_ROWS_AT_ONCE, MOST_ROWS_AT_ONCE + 1])
def test_each_row_gets_its_own_key_in_order_and_one_statement(make_session, count):
    """The keys given back belong to the rows they are given to (checked by every
    column), ascending as the rows were sent, with the instance's state as
    `bulk_create` leaves it; one statement for up to MOST_ROWS_AT_ONCE rows."""
    session, p = make_session()
    deal = session.deals.get()
    rows = _lines(deal, p, 1, count)
    with CaptureQueriesContext(connection) as queries:
        stored = insert_all(rows)
    if count <= MOST_ROWS_AT_ONCE:
        assert len(queries) == 1
    assert stored == rows
    assert all(not r._state.adding and r._state.db == "default" for r in rows)
    keys = [r.pk for r in rows]
    assert None not in keys and keys == sorted(keys) and len(set(keys)) == count
    by_key = {line.pk: values(line) for line in LedgerLine.objects.filter(deal=deal)}
    assert [by_key[r.pk] for r in rows] == [values(r) for r in rows]


def test_seats_stored_as_bulk_create_stores_them(make_session):
    """DealPlayer: `points` default, `place` NULL, the deal and player ids."""
    session, p = make_session()
    first = session.deals.get()
    twin = Deal.objects.create(session=session, number=2, status=Deal.Status.ENDED)
    seats = lambda deal: [  # noqa: E731
        DealPlayer(deal=deal, player=player, seat=n) for n, player in enumerate(p.values(), 1)
    ]
    DealPlayer.objects.filter(deal=first).delete()
    by_hand = insert_all(seats(first))
    by_orm = DealPlayer.objects.bulk_create(seats(twin))
    strip = lambda row: {**values(row), "id": None, "deal_id": None}  # noqa: E731
    stored = lambda deal: [strip(r) for r in DealPlayer.objects.filter(deal=deal).order_by("pk")]  # noqa: E731
    assert stored(first) == stored(twin)
    assert [strip(r) for r in by_hand] == [strip(r) for r in by_orm]


def _play(table, api) -> None:
    """Two filed deals (penalties, a 2 beaten), a correction, an undo reopening a deal."""
    deal = table.deal
    table.event(
        deal,
        type="two_beaten",
        by=table.p["Ben"],
        owner=table.p["Cara"],
        **{"with": "cutup"},
        black=1,
    )
    table.tap(deal, "Alice", "Cara", "Ben")
    order = [table.p[name] for name in ("Cara", "Alice", "Dev")]
    response = api.post(f"/api/deals/{deal}/correction/", {"taps": order, "reason": "r"})
    assert response.status_code == 200, response.json()
    second = table.deal
    table.tap(second, "Dev", "Ben", "Alice")


def _stored(session_id: int) -> tuple[list, list]:
    seats = [
        (s.deal.number, s.player.name, s.seat, s.place, s.points)
        for s in DealPlayer.objects.filter(deal__session_id=session_id)
        .select_related("deal", "player")
        .order_by("deal__number", "pk")
    ]
    lines = [
        (
            line.deal.number,
            line.position,
            line.payer.name,
            line.payee.name,
            line.amount,
            line.reason,
        )
        for line in LedgerLine.objects.filter(session_id=session_id)
        .select_related("deal", "payer", "payee")
        .order_by("deal__number", "pk")
    ]
    return seats, lines


def test_a_filing_through_the_api_stores_seats_and_ledger_as_bulk_create_did(
    start, api, monkeypatch
):
    from tracker.services import results

    now = start(options={"penalties": True})
    _play(now, api)

    def by_orm(instances):
        return type(instances[0])._default_manager.bulk_create(instances) if instances else []

    monkeypatch.setattr(results, "insert_all", by_orm)
    before = start(options={"penalties": True})
    _play(before, api)

    seats, lines = _stored(now.id)
    assert (seats, lines) == _stored(before.id)
    assert len(lines) > 3 and {line[0] for line in lines} == {1, 2}
    # The ledger's rows in position order, as bulk_create inserted them.
    for number in (1, 2):
        positions = [line[1] for line in lines if line[0] == number]
        assert positions == sorted(positions)


def test_a_related_row_saved_after_assignment_gives_its_key_as_in_bulk_create(make_session):
    """bulk_create (`Model._prepare_related_fields_for_save`) takes the key of a related
    row saved after it was assigned; insert_all, which promises the rows bulk_create
    stores, sends the empty `deal_id` it was built with and the insert fails."""
    session, p = make_session()
    deal = Deal(session=session, number=7, status=Deal.Status.ENDED)
    by_orm = _lines(deal, p, 1, 2)
    by_hand = _lines(deal, p, 11, 2)
    deal.save()
    LedgerLine.objects.bulk_create(by_orm)
    assert all(line.deal_id == deal.pk for line in by_orm)
    try:
        with transaction.atomic():
            insert_all(by_hand)
    except IntegrityError as error:
        pytest.fail(f"insert_all did not store what bulk_create stores: {error}")
    assert all(line.deal_id == deal.pk for line in by_hand)


def test_an_unsaved_related_row_is_refused_as_bulk_create_refuses_it(make_session):
    """bulk_create refuses a row whose related row is unsaved, before any statement
    (ValueError, "to prevent data loss"); insert_all sends it with a NULL key, which only
    the column's NOT NULL stops, and a nullable foreign key would store it as NULL."""
    session, p = make_session()
    unsaved = Deal(session=session, number=8)
    with pytest.raises(ValueError, match="unsaved related object"):
        LedgerLine.objects.bulk_create(_lines(unsaved, p, 1, 1))
    try:
        with transaction.atomic():
            insert_all(_lines(unsaved, p, 1, 1))
    except ValueError:
        pass
    except IntegrityError:
        pytest.fail("insert_all sent the row with a NULL deal_id to the database")
    else:
        pytest.fail("insert_all stored a row whose deal was never saved")
