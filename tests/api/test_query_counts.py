"""Constant cost: tap, deal detail, standings and settlement run the same number of
queries whether the session has 10 deals or 200."""

from __future__ import annotations

import copy

import pytest
from django.db import connection
from django.db.models.base import ModelState
from django.test.utils import CaptureQueriesContext

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


# A tap as a phone sends it in production: with an Idempotency-Key, counted against the
# write rate. The test runs in real transactions (no test transaction around it), so the
# statements are exactly those production sends, BEGIN and COMMIT included.
AS_IN_PRODUCTION = {"auth": None, "writes": "120/min"}
GATE_AND_LOCK = [
    "token",  # the caller's token and account
    'INSERT INTO "tracker_writecount"',  # the write rate, counted
    # The write and its key: one transaction (the key is looked up only on a clash), and no
    # savepoint of the service's own inside it (`gate.write_transaction`).
    "BEGIN",
    # the session's version moved on, its row locked, the deal found in the caller's reach
    'UPDATE "tracker_session" SET "version"',
    'FROM "tracker_dealplayer"',  # the deal as it now stands, with its players
    'FROM "tracker_tap"',  # the taps and events that stand: one statement for both
    'INSERT INTO "tracker_tap"',  # the tap
]
STORED = [
    'INSERT INTO "tracker_idempotencykey"',  # the answer, kept with its key
    "COMMIT",
]
CONTROL = ("BEGIN", "SAVEPOINT", "RELEASE SAVEPOINT", "COMMIT")


def statements(captured):
    return [query["sql"] for query in captured]


def assert_in_order(sent, expected):
    assert len(sent) == len(expected), "\n".join(sent)
    for sql, part in zip(sent, expected, strict=True):
        assert part in sql, (part, sql)


@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize("filed", SIZES)
def test_a_tap_sends_the_same_statements_however_long_the_session(
    long_session, api, settings, filed
):
    settings.REST_FRAMEWORK = {
        **settings.REST_FRAMEWORK,
        "DEFAULT_THROTTLE_RATES": AS_IN_PRODUCTION,
    }
    table, _ = long_session(filed)
    deal = table.deal
    api.post(f"/api/deals/{deal}/taps/", {"player": table.p["Alice"]})

    with CaptureQueriesContext(connection) as going_out:
        response = api.post(
            f"/api/deals/{deal}/taps/", {"player": table.p["Cara"]}, HTTP_IDEMPOTENCY_KEY="k1"
        )
    assert response.status_code == 201
    # The answer is built from what the write read and scored: nothing is read back. The
    # deal row is not written: a second player out changes nothing of it.
    sent = statements(going_out)
    assert_in_order(
        sent,
        [*GATE_AND_LOCK, 'UPDATE "tracker_dealplayer"', *STORED],  # places and points
    )
    assert 'FROM "tracker_deal"' in sent[3]  # the reach, in the lock's statement
    assert 'FROM "tracker_dealevent"' in sent[5]
    assert not [sql for sql in sent if "SAVEPOINT" in sql]
    assert len([sql for sql in sent if not sql.startswith(CONTROL)]) == 8

    with CaptureQueriesContext(connection) as filing:
        response = api.post(
            f"/api/deals/{deal}/taps/", {"player": table.p["Ben"]}, HTTP_IDEMPOTENCY_KEY="k2"
        )
    assert response.json()["status"] == "filed"
    assert_in_order(
        statements(filing),
        [
            *GATE_AND_LOCK,
            'UPDATE "tracker_standingtally"',  # the running totals, every player at once
            'UPDATE "tracker_session" SET "standings_version"',  # live standings: rows moved
            'UPDATE "tracker_dealplayer"',
            'UPDATE "tracker_deal"',  # filed
            'INSERT INTO "tracker_ledgerline"',  # its money
            'FROM "tracker_seat"',  # who sits at the next deal
            'INSERT INTO "tracker_deal"',  # the next deal
            'INSERT INTO "tracker_dealplayer"',  # its players
            *STORED,
        ],
    )


@pytest.mark.parametrize("filed", SIZES)
def test_deal_detail_query_count_is_constant(long_session, api, django_assert_num_queries, filed):
    table, first = long_session(filed)
    # 1 the caller's glance, its token, account, deal, session and circle with it (nothing
    # kept at this version yet: tracker.glance), 2 deal players with names (for the facts
    # and the answer), 3 taps and events that stand and the next deal's id, in one
    # statement (their not-played marks only when a tap has any)
    with django_assert_num_queries(3):
        response = api.get(f"/api/deals/{first}/")
    assert response.json()["next_deal"] is not None


@pytest.mark.parametrize("filed", SIZES)
def test_standings_query_count_is_constant(long_session, api, django_assert_num_queries, filed):
    table, _ = long_session(filed)
    # 1 the caller's glance with its token, account, session and circle (nothing kept
    # yet), 2 the running totals with player names
    with django_assert_num_queries(2):
        response = api.get(f"/api/sessions/{table.id}/standings/")
    rows = {row["name"]: row for row in response.json()["rows"]}
    assert (rows["Alice"]["points"], rows["Dev"]["net"]) == (3 * filed, f"{-3 * filed}.00")


@pytest.mark.parametrize("filed", SIZES)
def test_settlement_query_count_is_constant(long_session, api, django_assert_num_queries, filed):
    table, _ = long_session(filed)
    # 1 the caller's glance with its token, account, session and circle (nothing kept
    # yet), 2 balances from the running totals, 3 payments, 4 the payees' payment details
    # (none here, so no names for transfer notes)
    with django_assert_num_queries(4):
        response = api.get(f"/api/sessions/{table.id}/settlement/")
    transfers = [(t["from"], t["to"], t["amount"]) for t in response.json()["transfers"]]
    dev, alice, ben = (table.p[name] for name in ("Dev", "Alice", "Ben"))
    # Cara's 2 cut by Ben cancels what Dev pays her, deal after deal.
    assert transfers == [(dev, alice, f"{filed}.00"), (dev, ben, f"{2 * filed}.00")]


@pytest.mark.parametrize("path", ["end/", "correction/"])
def test_end_match_and_a_correction_move_both_counters_in_the_lock(long_session, api, path):
    """End match and a correction move what a live page follows (the version) and what
    kept answers follow (the rows' counter) in the statement that locks the session."""
    table, first = long_session(10)
    deal = table.deal if path == "end/" else first
    body = {} if path == "end/" else {"taps": [table.p[n] for n in ("Cara", "Alice", "Ben")]}
    with CaptureQueriesContext(connection) as captured:
        assert api.post(f"/api/deals/{deal}/{path}", body).status_code == 200
    moves = [sql for sql in statements(captured) if '"standings_version" =' in sql]
    assert len(moves) == 1 + (path == "correction/"), moves  # a correction's totals, after
    assert '"version" =' in moves[0]
