# ruff: noqa: F811  (the API fixtures are imported from tests/api/conftest.py)
"""A reviewer's tests of the hand-written statements (issue 15, session 12; tracker.rows):
the reach of `DealInReach` (data, with a hand-written subquery for the lock), the reads
`deal_and_players` and `one_with` (token, share link), `_seats_moved` and `unmarked`.

The review found one defect, fixed: `deal_in_reach` read an unset key (an account or a
page session with no `pk`, or "no account and no link", once encoded as the member 0)
as "no restriction", and the reach failed open. A `DealInReach` now reaches nothing
unless a key is set or it is `by_id`'s (`anywhere`). The other tests here check what
tests/test_rows.py leaves out, and passed from the start.
"""

from __future__ import annotations

import collections
import random
import threading
from datetime import timedelta

import pytest
from django.contrib.auth import get_user_model
from django.contrib.auth.models import AnonymousUser
from django.db import connection
from django.utils import timezone

import scoring
from tests.api.conftest import (  # noqa: F401 - fixtures
    api,
    client_with,
    start,
    stranger,
    stranger_api,
    token,
)
from tests.conftest import values
from tracker import rows, services
from tracker.access import Actor, DealInReach, Role, access_deal, deal_in_reach, link_by_token
from tracker.errors import Conflict, Invalid, NotFound
from tracker.models import ApiToken, Deal, DealPlayer, Session, ShareLink, Tap
from tracker.models.accounts import digest
from tracker.records import deal_facts, live_records
from tracker.rows import deal_and_players, one_with
from tracker.services import api_token_create, share_link_create
from tracker.services.accounts import TokenExpired, api_token_check
from tracker.services.deals import RACE
from tracker.services.locks import session_of_deal_changed
from tracker.services.results import _seats_moved

pytestmark = pytest.mark.django_db


def version(session_id: int) -> int:
    return Session.objects.values_list("version", flat=True).get(pk=session_id)


def versions() -> dict[int, int]:
    return dict(Session.objects.values_list("pk", "version"))


@pytest.fixture
def other_table(outsider_table):
    """Another account's session, with its open deal."""
    _outsider, other = outsider_table
    return other, other.deals.get()


# --- DEFECT: the reach fails open for an account without a key -------------------------


@pytest.mark.parametrize("who", ["anonymous", "unsaved account", "page of an unsaved session"])
def test_an_actor_without_a_stored_account_reaches_no_deal(
    other_table, django_user_model, actor, who
):
    """tracker/access.py deal_in_reach: `member = actor.user.pk if actor.user is not None
    else 0` gives `member_id=None` for an account whose pk is None (and `session.pk` gives
    `session_id=None` for an unsaved page session), and None is what `DealInReach` reads
    as "no restriction" (the `by_id` reach): the deal of any session is found, read
    (`access_deal`), and its session locked and moved on. The ORM's
    `filter(session__circle__members=actor.user)` / `filter(session=session)` refused
    these (TypeError for AnonymousUser, ValueError for an unsaved instance). No door builds
    such a caller today (the API and the pages check `is_authenticated` first), but the
    access layer must stay shut on its own: it fails open here."""
    other, deal = other_table
    page = None
    if who == "anonymous":
        caller = Actor(user=AnonymousUser())
    elif who == "unsaved account":
        caller = Actor(user=django_user_model(username="ghost"))
    else:
        caller, page = actor, Session(name="not stored")
    refused = (NotFound, TypeError, ValueError)  # NotFound, or the ORM's fail-closed errors

    with pytest.raises(refused):
        access_deal(caller, deal.pk, need=Role.SCORER, session=page)
    before = versions()
    with pytest.raises(refused):
        session_of_deal_changed(deal_in_reach(caller, deal.pk, need=Role.SCORER, session=page))
    assert versions() == before  # another account's session is not moved on


def test_no_account_and_no_link_reaches_no_circle_of_an_account_with_id_0(
    other_table, django_user_model
):
    """tracker/access.py deal_in_reach: "no account and no link" is the member 0, "as no
    account has id 0"; but id 0 is a valid key on both databases (a fixture, an import,
    the admin's shell), and a caller with no account and no link then reaches that
    account's circles (low: no door builds such a caller; the ORM version's
    `members=None` missed this one, though it reached circles with no members instead)."""
    other, deal = other_table
    zero = django_user_model.objects.create(pk=0, username="zero")
    other.circle.members.add(zero)
    nobody = Actor()

    with pytest.raises(NotFound):
        access_deal(nobody, deal.pk, need=Role.SCORER)
    before = versions()
    with pytest.raises(NotFound):
        session_of_deal_changed(deal_in_reach(nobody, deal.pk, need=Role.SCORER))
    assert versions() == before


# --- Sound: ids at the edges of the key's range ----------------------------------------


@pytest.mark.parametrize(
    "deal_id", [2**63 - 1, 2**63, 2**64, 10**30, -(2**63), -(2**63) - 1, -1, 0]
)
def test_ids_at_and_past_the_key_s_range_find_nothing_and_move_nothing(
    make_session, actor, deal_id
):
    """Every kind of reach, through the services (the lock's statement, the read): a key
    past bigint or below it is "not found", never a 500, and no session moves on."""
    session, p = make_session()
    scorer = share_link_create(session_id=session.pk, role="scorer", actor=actor)
    before = versions()
    reaches = [
        deal_in_reach(actor, deal_id, need=Role.SCORER),
        deal_in_reach(Actor(link=scorer), deal_id, need=Role.SCORER),
        deal_in_reach(actor, deal_id, need=Role.SCORER, session=session),
        DealInReach.by_id(deal_id),
    ]
    for reach in reaches:
        with pytest.raises(NotFound):
            services.deal_tap(deal_id=deal_id, player_id=p["Ben"].pk, actor=actor, reach=reach)
        with pytest.raises(NotFound):
            services.deal_event_record(
                deal_id=deal_id,
                event=scoring.Hand(player=p["Ben"].pk, cards=3),
                actor=actor,
                reach=reach,
            )
        with pytest.raises(NotFound):
            services.deal_undo(deal_id=deal_id, actor=actor, reach=reach)
        with pytest.raises(NotFound):
            session_of_deal_changed(reach)
    with pytest.raises(LookupError):
        deal_and_players(deal_id)
    assert versions() == before


# --- Sound: credentials read by hand: revoked, expired, deactivated --------------------


def test_a_revoked_link_and_a_deactivated_account_tap_nothing(start, api, user):
    table = start()
    deal = table.deal
    link = share_link_create(session_id=table.id, role="scorer", actor=Actor(user=user))
    scorer = client_with(f"Share {link.token}")
    assert scorer.post(f"/api/deals/{deal}/taps/", {"player": table.p["Ben"]}).status_code == 201

    ShareLink.objects.filter(pk=link.pk).update(revoked_at=timezone.now())
    before = version(table.id)
    answer = scorer.post(f"/api/deals/{deal}/taps/", {"player": table.p["Cara"]})
    assert answer.status_code == 401, answer.json()
    with pytest.raises(NotFound) as refused:
        link_by_token(link.token)
    assert refused.value.code == "link_revoked"

    get_user_model().objects.filter(pk=user.pk).update(is_active=False)
    answer = api.post(f"/api/deals/{deal}/taps/", {"player": table.p["Cara"]})
    assert answer.status_code == 401, answer.json()
    assert version(table.id) == before
    assert Tap.objects.filter(deal_id=deal, undone_at__isnull=True).count() == 1


def test_an_expired_token_read_by_hand_is_refused_and_deleted(user, settings):
    settings.API_TOKEN_IDLE_DAYS = 30
    key = api_token_create(user=user).key
    ApiToken.objects.update(last_used_at=timezone.now() - timedelta(days=30, seconds=5))
    with pytest.raises(TokenExpired):
        api_token_check(key)
    assert not ApiToken.objects.exists()
    assert api_token_check(key) is None


# --- Sound: USE_TZ off ---------------------------------------------------------------


def test_reads_by_hand_give_what_the_orm_gives_with_use_tz_off(make_session, actor, settings):
    settings.USE_TZ = False
    key = api_token_create(user=actor.user).key
    read = one_with(ApiToken, ("user",), "digest", digest(key))
    want = ApiToken.objects.select_related("user").get(digest=digest(key))
    assert values(read) == values(want) and values(read.user) == values(want.user)
    assert timezone.is_naive(read.last_used_at)
    assert api_token_check(key) is not None  # compared with a naive now: no TypeError

    session, p = make_session()
    deal = session.deals.get()
    link = share_link_create(session_id=session.pk, role="scorer", actor=actor)
    read = link_by_token(link.token)
    want = ShareLink.objects.select_related("session__circle").get(pk=link.pk)
    assert values(read) == values(want)
    assert values(read.session) == values(want.session)
    assert values(read.session.circle) == values(want.session.circle)

    services.deal_tap(deal_id=deal.pk, player_id=p["Ben"].pk, actor=actor)
    read, _seated = deal_and_players(deal.pk)
    want = Deal.objects.select_related("session").get(pk=deal.pk)
    assert values(read) == values(want) and values(read.session) == values(want.session)


# --- Sound: the seats -----------------------------------------------------------------


def test_deal_and_players_come_in_seat_order_whatever_the_rows_order(make_session, actor):
    session, _ = make_session()
    deal = session.deals.get()
    seats = list(DealPlayer.objects.filter(deal=deal).order_by("pk"))
    for seat in seats:  # out of the way of the unique (deal, seat) first
        DealPlayer.objects.filter(pk=seat.pk).update(seat=seat.seat + 10)
    for number, seat in enumerate(reversed(seats), start=1):
        DealPlayer.objects.filter(pk=seat.pk).update(seat=number)
    _deal, seated = deal_and_players(deal.pk)
    want = list(DealPlayer.objects.filter(deal=deal).order_by("seat"))
    assert [s.pk for s in seated] == [s.pk for s in want] == [s.pk for s in reversed(seats)]


def test_one_statement_with_null_and_numbered_places_is_typed_on_every_run(make_session):
    """`_seats_moved` with rows whose place is NULL beside rows with a place (PostgreSQL
    types a VALUES column from all its rows), run past psycopg's prepare threshold."""
    session, p = make_session()
    deal = session.deals.get()
    result = scoring.DealResult(
        status=scoring.DealStatus.OPEN,
        why=None,
        places={p["Ben"].pk: 1},
        points={p["Ben"].pk: 3, p["Alice"].pk: 0, p["Cara"].pk: 0, p["Dev"].pk: 0},
        winner=None,
        loser=None,
        ledger=(),
    )
    for _ in range(5):
        DealPlayer.objects.filter(deal=deal).update(place=None, points=0)
        _deal, seated = deal_and_players(deal.pk)
        for seat in seated:  # as if every seat moved: NULL places in the same statement
            seat.points = 1
        _seats_moved(seated, result)
        stored = {
            dp.player_id: (dp.place, dp.points) for dp in DealPlayer.objects.filter(deal=deal)
        }
        assert stored == {
            p["Ben"].pk: (1, 3),
            p["Alice"].pk: (None, 0),
            p["Cara"].pk: (None, 0),
            p["Dev"].pk: (None, 0),
        }


NAMES = ["Alice", "Ben", "Cara", "Dev", "Eve", "Finn", "Gus", "Hal"]


def test_stored_seats_are_scoring_s_for_every_format_stake_rule_and_table_size(make_session, actor):
    """Random tables of 4 to 8 players, both formats, three stake rules: loser taps,
    "not yet played" marks, hands, 2s beaten, Guaransheed, undo. After each write the
    stored seats of every deal are scoring's, and no write meets the unique (deal, place)
    constraint (which `_seats_moved` would turn into the RACE conflict)."""
    chance = random.Random(7)
    done, races = collections.Counter(), []
    for round_ in range(24):
        size = chance.choice([4, 5, 6, 8])
        fmt = chance.choice(["podium", "winner_takes_all"])
        rule = chance.choice(["loser_pays", "per_card", "none"])
        session = None
        for options in (
            scoring.Options(got_to_get_in=True, guaransheed=True, instant_wins=True),
            scoring.Options(got_to_get_in=True, guaransheed=True),
            scoring.Options(guaransheed=True),
            scoring.Options(),
        ):
            try:
                session, p = make_session(
                    players=NAMES[:size], format=fmt, stake_rule=rule, options=options
                )
                break
            except Invalid:
                continue
        if session is None:
            continue
        names = list(p)
        for _ in range(40):
            deal = session.deals.filter(status="open").first()
            if deal is None:
                break
            out = set(
                DealPlayer.objects.filter(deal=deal, place__isnull=False).values_list(
                    "player_id", flat=True
                )
            )
            left = [n for n in names if p[n].pk not in out] or names
            a = chance.choice(left)
            b = chance.choice([n for n in left if n != a] or [n for n in names if n != a])
            write = chance.choice(
                ["tap", "tap", "tap", "loser", "mark", "hand", "guaransheed", "two", "undo"]
            )
            try:
                if write in ("tap", "loser", "mark"):
                    services.deal_tap(
                        deal_id=deal.pk,
                        player_id=p[a].pk,
                        loser=write == "loser",
                        not_played=[p[b].pk] if write == "mark" else (),
                        actor=actor,
                    )
                elif write == "undo":
                    services.deal_undo(deal_id=deal.pk, actor=actor)
                else:
                    if write == "hand":
                        event = scoring.Hand(player=p[a].pk, cards=chance.randint(0, 13))
                    elif write == "guaransheed":
                        event = scoring.Guaransheed(player=p[a].pk)
                    else:
                        event = scoring.TwoBeaten(
                            by=p[a].pk, owner=p[b].pk, beaten_with=scoring.Beater.BOMB, black=1
                        )
                    services.deal_event_record(deal_id=deal.pk, event=event, actor=actor)
                done[write] += 1
            except Conflict as conflict:
                if conflict.message == RACE:
                    races.append((round_, write))
            except Invalid:
                pass
            for each in Deal.objects.filter(session=session).select_related("session"):
                stored = {
                    dp.player_id: (dp.place, dp.points)
                    for dp in DealPlayer.objects.filter(deal=each)
                }
                result = scoring.play(deal_facts(each))
                assert stored == {
                    player: (result.places.get(player), result.points.get(player, 0))
                    for player in stored
                }, (round_, write, fmt, rule, size)
    assert races == []
    assert done["tap"] > 50 and done["undo"] > 10 and done["mark"] and done["loser"], done


# --- Sound: built once a process, used from any thread ----------------------------------


@pytest.mark.django_db(transaction=True)
def test_statements_built_in_another_thread_read_right_in_this_one(make_session, actor):
    """The cached loaders hold the converters of the connection of the thread that built
    them (SQLite's make datetimes aware, decimals quantized): another thread's reads are
    still the ORM's."""
    rows._deal_and_players.cache_clear()
    session, p = make_session(stake="2.50")
    deal = session.deals.get()
    services.deal_tap(deal_id=deal.pk, player_id=p["Ben"].pk, actor=actor)
    link = share_link_create(session_id=session.pk, role="scorer", actor=actor)
    errors = []

    def build() -> None:
        try:
            deal_and_players(deal.pk)
            link_by_token(link.token)
        except Exception as error:  # reported below
            errors.append(error)
        finally:
            connection.close()

    thread = threading.Thread(target=build)
    thread.start()
    thread.join()
    assert errors == []
    read, seated = deal_and_players(deal.pk)
    want = Deal.objects.select_related("session").get(pk=deal.pk)
    assert values(read) == values(want) and values(read.session) == values(want.session)
    assert timezone.is_aware(read.opened_at) and read.session.stake == want.session.stake
    assert values(link_by_token(link.token)) == values(ShareLink.objects.get(pk=link.pk))


# --- Sound: the filled empty "not yet played" --------------------------------------------


def test_the_shared_empty_not_played_stays_empty_and_each_tap_s_own(
    make_session, actor, django_assert_num_queries
):
    session, p = make_session(options=scoring.Options(got_to_get_in=True))
    deal = session.deals.get()
    services.deal_tap(deal_id=deal.pk, player_id=p["Alice"].pk, actor=actor)
    services.deal_tap(deal_id=deal.pk, player_id=p["Ben"].pk, actor=actor)
    first, second = (row for row in live_records(deal) if isinstance(row, Tap))
    assert first.not_played.all() is second.not_played.all()  # one filled queryset
    with django_assert_num_queries(0):
        assert list(first.not_played.all()) == list(second.not_played.all()) == []
        assert first.not_played.count() == 0 and not second.not_played.exists()

    first.not_played.add(p["Dev"])  # drops this tap's cache only
    assert [player.pk for player in first.not_played.all()] == [p["Dev"].pk]
    with django_assert_num_queries(0):
        assert list(second.not_played.all()) == []

    seen = []
    threads = [
        threading.Thread(target=lambda: seen.append(list(second.not_played.all())))
        for _ in range(8)
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert seen == [[]] * 8


@pytest.mark.parametrize("who", ["anonymous", "unsaved account", "no account, no link"])
def test_a_caller_without_a_stored_account_reaches_no_session(other_table, django_user_model, who):
    """The session read by hand (`access_session`) stays shut the same way, even for the
    circles of an account whose id is 0."""
    from tracker.access import access_session

    other, _deal = other_table
    other.circle.members.add(django_user_model.objects.create(pk=0, username="zero"))
    user = {
        "anonymous": AnonymousUser(),
        "unsaved account": django_user_model(username="ghost"),
        "no account, no link": None,
    }[who]
    with pytest.raises(NotFound):
        access_session(Actor(user=user), other.pk)
