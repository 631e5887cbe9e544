"""The tap's statements written by hand (issue 15, session 12) say what the ORM's said:

- `tracker.rows.deal_and_players` reads the deal, its session, dealer, leader and players
  as `select_related` reads them, field by field;
- `DealInReach.session_of_deal` finds what its queryset `deals` finds, for every kind of
  reach, so the statement that locks the session refuses what the ORM's refused;
- a tap or an event on an open deal writes only the seats whose place or points move
  (`_seats_moved`), and what is stored is what scoring says.
"""

from __future__ import annotations

import random

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

import scoring
from tests.conftest import values
from tracker import services
from tracker.access import Actor, DealInReach, Role, deal_in_reach
from tracker.errors import Conflict, Invalid, NotFound
from tracker.models import Deal, DealPlayer, Session
from tracker.records import deal_facts
from tracker.rows import deal_and_players
from tracker.services import share_link_create
from tracker.services.locks import session_of_deal_changed
from tracker.services.results import _seats_moved

pytestmark = pytest.mark.django_db

OPTIONS = scoring.Options(got_to_get_in=True, guaransheed=True)


def orm_read(deal_id: int) -> list[DealPlayer]:
    return list(
        DealPlayer.objects.filter(deal_id=deal_id)
        .select_related("deal__session", "deal__dealer", "deal__leader", "player")
        .order_by("seat")
    )


def assert_read_as_the_orm(deal_id: int) -> None:
    deal, seated = deal_and_players(deal_id)
    orm = orm_read(deal_id)
    assert [values(seat) for seat in seated] == [values(seat) for seat in orm]
    assert [values(seat.player) for seat in seated] == [values(seat.player) for seat in orm]
    want = orm[0].deal
    assert values(deal) == values(want)
    assert values(deal.session) == values(want.session)
    for role in ("dealer", "leader"):
        got, expected = getattr(deal, role), getattr(want, role)
        assert (got and values(got)) == (expected and values(expected)), role
    # Read once, shared: every seat holds this very deal, as `deal_and_players` promised.
    assert all(seat.deal is deal for seat in seated)
    assert deal.session.rules == want.session.rules  # JSON decoded, as the ORM decodes it


def test_the_deal_and_its_players_read_as_select_related_reads_them(make_session, actor):
    session, p = make_session(options=OPTIONS, stake="2.50")
    first = session.deals.get()
    for name in ("Cara", "Alice", "Dev"):
        services.deal_tap(deal_id=first.pk, player_id=p[name].pk, actor=actor)
    following = session.deals.get(status=Deal.Status.OPEN)
    assert following.dealer_id is not None  # the next deal has a dealer and a leader
    assert_read_as_the_orm(first.pk)
    assert_read_as_the_orm(following.pk)


def test_a_deal_with_no_dealer_or_leader_reads_them_as_none(make_session):
    session, _ = make_session()
    deal = session.deals.get()
    Deal.objects.filter(pk=deal.pk).update(dealer=None, leader=None)
    assert_read_as_the_orm(deal.pk)
    read, _ = deal_and_players(deal.pk)
    assert read.dealer is None and read.leader is None


def test_an_unknown_deal_is_a_lookup_error(db):
    with pytest.raises(LookupError):
        deal_and_players(987654321)


# --- The reach, by hand and by the ORM ---------------------------------------------------


@pytest.fixture
def world(make_session, actor, outsider_table):
    session, _ = make_session()
    outsider, other = outsider_table
    scorer = share_link_create(session_id=session.pk, role="scorer", actor=actor)
    return {
        "session": session,
        "other": other,
        "deals": [session.deals.get().pk, other.deals.get().pk, 987654321],
        "callers": {
            "member": actor,
            "outsider": Actor(user=outsider),
            "scorer link": Actor(link=scorer),
            "no account, no link": Actor(),
        },
    }


def reaches(world):
    """Every kind of reach: each caller's, and the page's (one session) for each."""
    for name, caller in world["callers"].items():
        for deal_id in world["deals"]:
            yield name, deal_in_reach(caller, deal_id, need=Role.SCORER)
            for page in (world["session"], world["other"]):
                yield (
                    f"{name} on {page.name}",
                    deal_in_reach(caller, deal_id, need=Role.SCORER, session=page),
                )
    for deal_id in world["deals"]:
        yield "by id", DealInReach.by_id(deal_id)


def test_the_hand_written_reach_finds_what_the_queryset_finds(world):
    found = set()
    for name, reach in reaches(world):
        sql, params = reach.session_of_deal()
        with connection.cursor() as cursor:
            cursor.execute(sql, params)
            by_hand = [row[0] for row in cursor.fetchall()]
        by_orm = list(reach.deals.values_list("session_id", flat=True))
        assert by_hand == by_orm, (name, reach)
        found.add(bool(by_orm))
    assert found == {True, False}  # both answers were asked for


def test_a_deal_in_reach_reads_with_its_session_as_the_queryset_reads_it(world):
    for name, reach in reaches(world):
        read = reach.read()
        want = reach.deals.select_related("session").first()
        if want is None:
            assert read is None, name
            continue
        assert values(read) == values(want), name
        assert values(read.session) == values(want.session), name
    big = DealInReach.by_id(2**63)  # past bigint: found nowhere, as the ORM finds it
    assert big.read() is None and not big.deals.exists()


def test_the_lock_moves_the_session_on_only_within_reach(world):
    def versions():
        return dict(Session.objects.values_list("pk", "version"))

    for name, reach in reaches(world):
        before = versions()
        reached = reach.deals.values_list("session_id", flat=True).first()
        if reached is None:
            with pytest.raises(NotFound) as refused:
                session_of_deal_changed(reach)
            assert refused.value is reach.missing
            assert versions() == before, name
        else:
            session_of_deal_changed(reach)
            assert versions() == {**before, reached: before[reached] + 1}, name


# --- Only the seats that move ------------------------------------------------------------


def stored(deal_id: int) -> dict[int, tuple[int | None, int]]:
    return {
        dp.player_id: (dp.place, dp.points) for dp in DealPlayer.objects.filter(deal_id=deal_id)
    }


def scored(deal_id: int) -> dict[int, tuple[int | None, int]]:
    deal = Deal.objects.select_related("session").get(pk=deal_id)
    result = scoring.play(deal_facts(deal))
    return {
        player: (result.places.get(player), result.points.get(player, 0))
        for player in stored(deal_id)
    }


def seat_updates(queries) -> int:
    table = DealPlayer._meta.db_table
    return sum(q["sql"].lstrip().startswith("UPDATE") and table in q["sql"] for q in queries)


def test_a_tap_writes_the_seat_it_moves_and_an_event_that_moves_none_writes_none(
    make_session, actor
):
    session, p = make_session(options=OPTIONS)
    deal = session.deals.get()
    with CaptureQueriesContext(connection) as queries:
        services.deal_event_record(
            deal_id=deal.pk, event=scoring.Hand(player=p["Dev"].pk, cards=5), actor=actor
        )
    assert seat_updates(queries) == 0  # a hand on an open deal moves no place or points
    with CaptureQueriesContext(connection) as queries:
        services.deal_tap(deal_id=deal.pk, player_id=p["Ben"].pk, actor=actor)
    assert seat_updates(queries) == 1
    assert stored(deal.pk) == scored(deal.pk)


def test_what_taps_and_events_store_is_what_scoring_says(make_session, actor):
    """Random tables: after every write that stood, each seat's stored place and points
    are the deal's as scoring computes them from its facts."""
    chance = random.Random(12)
    for _ in range(6):
        session, p = make_session(options=OPTIONS)
        deal = session.deals.get()
        names = list(p)
        for _ in range(10):
            if deal.pk not in set(session.deals.filter(status="open").values_list("pk", flat=True)):
                deal = session.deals.get(status="open")
            name = chance.choice(names)
            write = chance.choice(["tap", "tap", "guaransheed", "hand", "undo"])
            try:
                if write == "tap":
                    services.deal_tap(deal_id=deal.pk, player_id=p[name].pk, actor=actor)
                elif write == "guaransheed":
                    event = scoring.Guaransheed(player=p[name].pk)
                    services.deal_event_record(deal_id=deal.pk, event=event, actor=actor)
                elif write == "hand":
                    event = scoring.Hand(player=p[name].pk, cards=chance.randint(1, 13))
                    services.deal_event_record(deal_id=deal.pk, event=event, actor=actor)
                else:
                    services.deal_undo(deal_id=deal.pk, actor=actor)
            except (Conflict, Invalid):
                pass  # refused by the rules: nothing changed
            assert stored(deal.pk) == scored(deal.pk), (write, name)


def test_a_place_taken_back_is_written_as_none(make_session, actor):
    """The statement's places may all be NULL (PostgreSQL then types the column as text):
    written as no place, not refused."""
    session, p = make_session()
    deal = session.deals.get()
    services.deal_tap(deal_id=deal.pk, player_id=p["Ben"].pk, actor=actor)
    _deal, seated = deal_and_players(deal.pk)
    nothing = scoring.play(
        scoring.DealFacts(players=tuple(s.player_id for s in seated), rules=_deal.session.rules)
    )
    _seats_moved(seated, nothing)
    assert stored(deal.pk) == {s.player_id: (None, 0) for s in seated}


# --- A credential with what it reaches ---------------------------------------------------


def test_a_token_reads_with_its_account_as_select_related_reads_them(user):
    from tracker.models import ApiToken
    from tracker.models.accounts import digest
    from tracker.rows import one_with
    from tracker.services import api_token_create

    key = api_token_create(user=user).key
    token = one_with(ApiToken, ("user",), "digest", digest(key))
    want = ApiToken.objects.select_related("user").get(digest=digest(key))
    assert values(token) == values(want)
    assert values(token.user) == values(want.user)
    assert one_with(ApiToken, ("user",), "digest", digest("no such key")) is None


def test_a_link_reads_with_its_session_and_circle_as_select_related_reads_them(make_session, actor):
    from tracker.models import ShareLink
    from tracker.rows import one_with

    session, _ = make_session(options=OPTIONS)
    link = share_link_create(session_id=session.pk, role="scorer", actor=actor)
    related = ("session", "session__circle")
    read = one_with(ShareLink, related, "token", link.token)
    want = ShareLink.objects.select_related(*related).get(token=link.token)
    assert values(read) == values(want)
    assert values(read.session) == values(want.session)
    assert values(read.session.circle) == values(want.session.circle)
    assert read.session.rules == want.session.rules
    assert one_with(ShareLink, related, "token", "x" * len(link.token)) is None


# --- A row stored in one statement -------------------------------------------------------


def test_an_inserted_row_is_stored_as_create_stores_it(make_session, actor):
    from django.utils import timezone

    from tracker.models import DealEvent, IdempotencyKey, Tap
    from tracker.row_writes import insert

    session, p = make_session(options=OPTIONS)
    deal = session.deals.get()
    when = timezone.now()
    pairs = [
        (
            Tap,
            dict(deal=deal, seq=1, player_id=p["Ben"].pk, place=1, recorded_at=when),
            {"recorded_by_id": actor.user.pk},
        ),
        (
            DealEvent,
            dict(deal=deal, seq=2, type=DealEvent.Type.GUARANSHEED, player_id=p["Dev"].pk),
            {"recorded_by_id": actor.user.pk, "blind": True, "recorded_at": when},
        ),
        (
            IdempotencyKey,
            dict(scope="user:1", fingerprint="f" * 64, status_code=201, created_at=when),
            {"response_body": '{"ok": "Bình"}'},
        ),
    ]
    for number, (model, shared, more) in enumerate(pairs):
        extra = {"key": f"k{number}"} if model is IdempotencyKey else {}
        by_orm = model.objects.create(**shared, **more, **extra)
        model.objects.filter(pk=by_orm.pk).delete()  # the unique (deal, seq) / (scope, key)
        by_hand = insert(model(**shared, **more, **extra))
        assert by_hand.pk is not None and not by_hand._state.adding
        stored = values(model.objects.get(pk=by_hand.pk))
        assert {**stored, "id": None} == {**values(by_orm), "id": None}, model
        assert values(by_hand) == stored


def test_rows_inserted_together_are_stored_as_bulk_create_stores_them(make_session, actor):
    from decimal import Decimal

    from tracker.models import LedgerLine
    from tracker.row_writes import MOST_ROWS_AT_ONCE, insert_all

    session, p = make_session(options=OPTIONS)
    deal = session.deals.get()
    deal.status = Deal.Status.FILED
    deal.save(update_fields=["status"])
    names = ["Ben", "Cara", "Dev"]

    def lines(first: int) -> list[LedgerLine]:
        return [
            LedgerLine(
                deal=deal,
                session_id=session.pk,
                position=first + number,
                payer_id=p[name].pk,
                payee_id=p["Alice"].pk,
                amount=Decimal("1.5") * (number + 1),
                reason=LedgerLine.Reason.LOSER_PAYS,
            )
            for number, name in enumerate(names)
        ]

    by_orm = LedgerLine.objects.bulk_create(lines(1))
    by_hand = insert_all(lines(11))
    assert all(line.pk is not None and not line._state.adding for line in by_hand)
    assert len({line.pk for line in [*by_orm, *by_hand]}) == 6  # each its own key, given back
    stored = {line.pk: values(line) for line in LedgerLine.objects.filter(deal=deal)}
    for orm, hand in zip(by_orm, by_hand, strict=True):
        assert {**stored[hand.pk], "id": None, "position": 0} == {
            **stored[orm.pk],
            "id": None,
            "position": 0,
        }
        assert values(hand) == stored[hand.pk]
    assert stored[by_hand[2].pk]["amount"] == Decimal("4.5")  # money stays exact
    assert insert_all([]) == []
    # Past the most a statement is built for: the ORM's bulk_create, the same rows.
    many = insert_all(
        [
            LedgerLine(
                deal=deal,
                session_id=session.pk,
                position=100 + number,
                payer_id=p["Ben"].pk,
                payee_id=p["Alice"].pk,
                amount=Decimal("0.5"),
                reason=LedgerLine.Reason.LOSER_PAYS,
            )
            for number in range(MOST_ROWS_AT_ONCE + 1)
        ]
    )
    assert LedgerLine.objects.filter(deal=deal, position__gte=100).count() == len(many)


def test_rows_of_two_models_or_with_keys_are_not_inserted_together(make_session):
    from tracker.row_writes import insert_all

    session, p = make_session()
    deal = session.deals.get()
    seat = deal.deal_players.first()
    with pytest.raises(TypeError, match="a key already"):
        insert_all([seat])
    with pytest.raises(TypeError, match="one model"):
        insert_all([DealPlayer(deal=deal, player=p["Ben"], seat=9), Session()])


def test_defaults_are_given_as_save_gives_them(make_session, actor):
    from tracker.models import IdempotencyKey
    from tracker.row_writes import insert

    row = insert(IdempotencyKey(scope="user:1", key="k", fingerprint="f", status_code=200))
    stored = IdempotencyKey.objects.get(pk=row.pk)
    assert stored.created_at == row.created_at and stored.response_body == ""


def test_a_model_with_signal_receivers_is_not_inserted_by_hand(user):
    from django.contrib.auth.models import User

    from tracker.row_writes import insert

    with pytest.raises(TypeError, match="signal receivers"):
        insert(User(username="someone"))


def test_an_update_writes_the_fields_as_save_writes_them(make_session):
    from django.db import DatabaseError
    from django.utils import timezone

    from tracker.row_writes import update

    session, p = make_session()
    deal, twin = session.deals.get(), session.deals.get()
    when = timezone.now()
    for row in (deal, twin):
        row.status, row.winner_id, row.closed_at = Deal.Status.FILED, p["Ben"].pk, when
        row.last_seq = 7
    twin.save(update_fields=["status", "winner", "closed_at", "last_seq"])
    saved = values(Deal.objects.get(pk=deal.pk))
    Deal.objects.filter(pk=deal.pk).update(status=Deal.Status.OPEN, winner=None, last_seq=0)
    update(deal, ("status", "winner", "closed_at", "last_seq"))
    assert values(Deal.objects.get(pk=deal.pk)) == saved
    gone = Deal(pk=987654321, session=session, number=99)
    with pytest.raises(DatabaseError):
        update(gone, ("status",))


def test_the_seats_read_with_their_players_in_order_as_the_orm_reads_them(make_session):
    from tracker.models import Seat
    from tracker.rows import all_with

    session, _ = make_session(players=("Dev", "Alice", "Cara", "Ben"))
    read = all_with(Seat, ("player",), "session", session.pk, order=("position",))
    want = list(session.seats.select_related("player").order_by("position"))
    assert [values(seat) for seat in read] == [values(seat) for seat in want]
    assert [values(seat.player) for seat in read] == [values(seat.player) for seat in want]
    assert all_with(Seat, ("player",), "session", 987654321) == []


def test_a_deal_s_seats_and_the_next_deal_read_as_the_orm_reads_them(make_session, actor):
    from tracker.records import live_records, live_records_and_next, seated_players

    session, p = make_session()
    first = session.deals.get()
    for name in ("Cara", "Alice", "Dev"):
        services.deal_tap(deal_id=first.pk, player_id=p[name].pk, actor=actor)
    seated = seated_players(first)
    want = list(first.deal_players.select_related("player").order_by("seat"))
    assert [values(seat) for seat in seated] == [values(seat) for seat in want]
    assert [values(seat.player) for seat in seated] == [values(seat.player) for seat in want]
    assert all(seat.deal is first for seat in seated)
    following = session.deals.get(number=2)
    # The next deal's id comes with the records, which are the ones read without it.
    rows, next_deal = live_records_and_next(first)
    assert next_deal == following.pk
    assert [(type(row), row.pk) for row in rows] == [
        (type(row), row.pk) for row in live_records(first)
    ]
    assert live_records_and_next(following) == ([], None)


def test_payments_read_with_who_recorded_and_cancelled_them_as_select_related_reads_them(
    make_session, actor
):
    from decimal import Decimal

    from tracker.models import Payment
    from tracker.rows import all_with
    from tracker.services import payment_cancel, payment_record

    session, p = make_session()
    link = share_link_create(session_id=session.pk, role="scorer", actor=actor)
    by_link = Actor(link=link)
    made = [
        payment_record(
            session_id=session.pk,
            payer_id=p["Ben"].pk,
            payee_id=p["Alice"].pk,
            amount=Decimal(amount),
            actor=who,
        )
        for amount, who in (("1.50", actor), ("2.00", by_link), ("0.25", actor))
    ]
    payment_cancel(session_id=session.pk, payment_id=made[0].pk, actor=by_link)
    payment_cancel(session_id=session.pk, payment_id=made[1].pk, actor=actor)
    related = ("recorded_by", "recorded_via", "cancelled_by", "cancelled_via")
    read = all_with(Payment, related, "session", session.pk, order=("paid_at", "pk"))
    want = list(
        Payment.objects.filter(session=session).select_related(*related).order_by("paid_at", "pk")
    )
    assert [values(payment) for payment in read] == [values(payment) for payment in want]
    for got, expected in zip(read, want, strict=True):
        for name in related:
            one, other = getattr(got, name), getattr(expected, name)
            assert (one and values(one)) == (other and values(other)), name
    assert {name for name in related if getattr(read[2], name) is None} == {
        "recorded_via",
        "cancelled_by",
        "cancelled_via",
    }


def test_a_session_in_reach_reads_with_its_circle_as_the_queryset_reads_it(world):
    from tracker.access import _session_in_reach, sessions_of

    for name, caller in world["callers"].items():
        for session_id in (world["session"].pk, world["other"].pk, 987654321, 2**63):
            read = _session_in_reach(caller, session_id)
            if session_id < 2**63:
                queryset = Session.objects.select_related("circle")
                want = sessions_of(caller, queryset).filter(pk=session_id).first()
            else:
                want = None
            assert (read and values(read)) == (want and values(want)), (name, session_id)
            if read is not None:
                assert values(read.circle) == values(want.circle)


def orm_points_by_deal(session, last):
    """The sparklines' read as the ORM said it, before it was written by hand."""
    from tracker.models import counted

    recent = Deal.objects.filter(counted(), session=session).order_by("-number").values("pk")[:last]
    by_deal: dict[int, dict[int, int]] = {}
    rows = (
        DealPlayer.objects.filter(deal__in=recent)
        .order_by("deal__number", "seat")
        .values_list("deal__number", "player_id", "points")
    )
    for number, player, points in rows:
        by_deal.setdefault(number, {})[player] = points
    return max(by_deal, default=0), sorted(by_deal.items())


def test_the_sparklines_read_the_last_counted_deals_as_the_orm_read_them(make_session, actor):
    from tracker.selectors.standings import session_points_by_deal

    session, p = make_session()
    assert session_points_by_deal(session, last=3) == orm_points_by_deal(session, 3) == (0, [])
    order = ["Cara", "Alice", "Dev", "Ben"]
    for number in range(5):
        deal = session.deals.get(status=Deal.Status.OPEN)
        for name in order[number % 4 :] + order[: number % 4]:
            if Deal.objects.get(pk=deal.pk).status != Deal.Status.OPEN:
                break
            services.deal_tap(deal_id=deal.pk, player_id=p[name].pk, actor=actor)
    deal = session.deals.get(status=Deal.Status.OPEN)
    services.deal_tap(deal_id=deal.pk, player_id=p["Ben"].pk, actor=actor)
    services.deal_end(deal_id=deal.pk, actor=actor)  # ended after one went out: it counts
    for last in (1, 3, 6, 40):
        assert session_points_by_deal(session, last=last) == orm_points_by_deal(session, last)
    count, series = session_points_by_deal(session, last=40)
    assert count == 6 and [number for number, _ in series] == [1, 2, 3, 4, 5, 6]
