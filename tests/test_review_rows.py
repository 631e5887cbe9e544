# ruff: noqa: F811  (the API fixtures are imported from tests/api/conftest.py)
"""A reviewer's probes of the tap's hand-written statements (tracker.rows, session 12)."""

from __future__ import annotations

import threading
from datetime import timedelta

import pytest
from django.contrib.auth import get_user_model
from django.db import connection
from django.utils import timezone

import scoring
from tests.api.conftest import (  # noqa: F401 - fixtures
    api,
    client_with,
    db_state,
    start,
    stranger,
    stranger_api,
    token,
)
from tracker import rows, services
from tracker.access import Actor, DealInReach, Role, deal_in_reach, link_by_token
from tracker.errors import NotFound
from tracker.models import ApiToken, Deal, DealPlayer, Session, ShareLink, Tap
from tracker.records import live_records
from tracker.rows import deal_and_players, one_with
from tracker.services import api_token_create, share_link_create
from tracker.services.accounts import api_token_check
from tracker.services.locks import session_of_deal_changed
from tracker.services.results import _seats_moved

pytestmark = pytest.mark.django_db


def values(instance) -> dict:
    return {f.attname: getattr(instance, f.attname) for f in type(instance)._meta.concrete_fields}


def version(session_id: int) -> int:
    return Session.objects.values_list("version", flat=True).get(pk=session_id)


# --- probes ---------------------------------------------------------------------------


@pytest.mark.parametrize("deal_id", [2**63 - 1, 2**63, 2**64, -(2**63), -(2**63) - 1, -1, 0])
def test_probe_ids_at_the_edges(make_session, actor, deal_id):
    session, p = make_session()
    before = version(session.pk)
    for reach in (
        deal_in_reach(actor, deal_id, need=Role.SCORER),
        deal_in_reach(actor, deal_id, need=Role.SCORER, session=session),
        DealInReach.by_id(deal_id),
    ):
        with pytest.raises(NotFound):
            services.deal_tap(deal_id=deal_id, player_id=p["Ben"].pk, actor=actor, reach=reach)
        with pytest.raises(NotFound):
            services.deal_undo(deal_id=deal_id, actor=actor, reach=reach)
    assert version(session.pk) == before


def test_probe_use_tz_off(make_session, actor, settings, user):
    settings.USE_TZ = False
    key = api_token_create(user=user).key
    got = one_with(ApiToken, ("user",), "digest", rows.__name__ and __import__("tracker.models.accounts", fromlist=["digest"]).digest(key))
    want = ApiToken.objects.select_related("user").get(pk=got.pk)
    assert values(got) == values(want)
    assert values(got.user) == values(want.user)
    assert api_token_check(key) is not None
    session, p = make_session()
    deal = session.deals.get()
    link = share_link_create(session_id=session.pk, role="scorer", actor=actor)
    read = link_by_token(link.token)
    want = ShareLink.objects.select_related("session__circle").get(pk=link.pk)
    assert values(read) == values(want)
    assert values(read.session) == values(want.session)
    services.deal_tap(deal_id=deal.pk, player_id=p["Ben"].pk, actor=actor)
    d, seated = deal_and_players(deal.pk)
    want = Deal.objects.select_related("session").get(pk=deal.pk)
    assert values(d) == values(want)
    assert values(d.session) == values(want.session)


def test_probe_api_flows(start, api, token, stranger_api, user):
    table = start()
    deal = table.deal
    assert api.post(f"/api/deals/{deal}/taps/", {"player": table.p["Alice"]}).status_code == 201
    s = Session.objects.get(pk=table.id)
    link = share_link_create(session_id=table.id, role="scorer", actor=Actor(user=user))
    scorer = client_with(f"Share {link.token}")
    assert scorer.post(f"/api/deals/{deal}/taps/", {"player": table.p["Ben"]}).status_code == 201
    services.share_link_revoke if hasattr(services, "share_link_revoke") else None
    ShareLink.objects.filter(pk=link.pk).update(revoked_at=timezone.now())
    v = version(s.pk)
    r = scorer.post(f"/api/deals/{deal}/taps/", {"player": table.p["Cara"]})
    assert r.status_code == 401, r.json()
    assert version(s.pk) == v
    r = stranger_api.post(f"/api/deals/{deal}/taps/", {"player": table.p["Cara"]})
    assert r.status_code == 404
    get_user_model().objects.filter(pk=user.pk).update(is_active=False)
    r = api.post(f"/api/deals/{deal}/taps/", {"player": table.p["Cara"]})
    assert r.status_code == 401
    assert version(s.pk) == v


def test_probe_expired(user, settings):
    settings.API_TOKEN_IDLE_DAYS = 30
    key = api_token_create(user=user).key
    ApiToken.objects.update(last_used_at=timezone.now() - timedelta(days=31))
    from tracker.services.accounts import TokenExpired

    with pytest.raises(TokenExpired):
        api_token_check(key)
    assert ApiToken.objects.count() == 0


def test_probe_mixed_null_places_pg(make_session, actor):
    session, p = make_session()
    deal = session.deals.get()
    for _ in range(5):
        _d, seated = deal_and_players(deal.pk)
        result = scoring.DealResult(
            status=scoring.DealStatus.OPEN,
            why=None,
            places={p["Ben"].pk: 1},
            points={p["Ben"].pk: 3, p["Alice"].pk: 0, p["Cara"].pk: 0, p["Dev"].pk: 0},
            winner=None,
            loser=None,
            ledger=(),
        )
        for s in seated:
            s.points = 1  # pretend everyone moved
            s.place = None
        _seats_moved(seated, result)
        stored = dict(DealPlayer.objects.filter(deal=deal).values_list("player_id", "place"))
        assert stored[p["Ben"].pk] == 1


def test_probe_cache_built_in_another_thread(make_session, actor):
    rows._deal_and_players.cache_clear()
    rows._one_with.cache_clear()
    session, p = make_session()
    deal = session.deals.get()
    errors = []

    def build():
        try:
            rows._deal_and_players(connection.vendor)
        except Exception as e:  # pragma: no cover
            errors.append(e)
        finally:
            connection.close()

    t = threading.Thread(target=build)
    t.start()
    t.join()
    assert not errors
    d, seated = deal_and_players(deal.pk)
    want = Deal.objects.select_related("session").get(pk=deal.pk)
    assert values(d) == values(want)
    assert values(d.session) == values(want.session)


def test_probe_random_many_rules(make_session, actor):
    import random

    from tracker.errors import Conflict, Invalid
    from tracker.records import deal_facts
    from tracker.services.deals import RACE

    chance = random.Random(7)
    names_all = ["Alice", "Ben", "Cara", "Dev", "Eve", "Finn", "Gus", "Hal"]
    races = []
    for round_ in range(14):
        size = chance.choice([4, 5, 6, 8])
        fmt = chance.choice(["podium", "winner_takes_all"])
        rule = chance.choice(["loser_pays", "per_card", "none"])
        opts = scoring.Options(got_to_get_in=True, guaransheed=True, instant_wins=True)
        try:
            session, p = make_session(players=names_all[:size], format=fmt, stake_rule=rule, options=opts)
        except Exception:
            continue
        names = list(p)
        for _ in range(25):
            deal = session.deals.get(status="open") if session.deals.filter(status="open").exists() else None
            if deal is None:
                break
            a, b = chance.sample(names, 2)
            write = chance.choice(["tap", "tap", "tap", "loser", "np", "hand", "g", "iw", "two", "undo"])
            try:
                if write == "tap":
                    services.deal_tap(deal_id=deal.pk, player_id=p[a].pk, actor=actor)
                elif write == "loser":
                    services.deal_tap(deal_id=deal.pk, player_id=p[a].pk, loser=True, actor=actor)
                elif write == "np":
                    services.deal_tap(deal_id=deal.pk, player_id=p[a].pk, not_played=[p[b].pk], actor=actor)
                elif write == "hand":
                    services.deal_event_record(deal_id=deal.pk, event=scoring.Hand(player=p[a].pk, cards=chance.randint(0, 13)), actor=actor)
                elif write == "g":
                    services.deal_event_record(deal_id=deal.pk, event=scoring.Guaransheed(player=p[a].pk), actor=actor)
                elif write == "iw":
                    services.deal_event_record(deal_id=deal.pk, event=scoring.InstantWin(player=p[a].pk, kind=scoring.InstantWinKind.DRAGON), actor=actor)
                elif write == "two":
                    services.deal_event_record(deal_id=deal.pk, event=scoring.TwoBeaten(by=p[a].pk, owner=p[b].pk, beaten_with=scoring.Beater.BOMB, black=1), actor=actor)
                else:
                    services.deal_undo(deal_id=deal.pk, actor=actor)
            except Conflict as c:
                if c.message == RACE:
                    races.append((round_, write))
            except Invalid:
                pass
            for d in session.deals.all():
                stored = {dp.player_id: (dp.place, dp.points) for dp in DealPlayer.objects.filter(deal=d)}
                dd = Deal.objects.select_related("session").get(pk=d.pk)
                res = scoring.play(deal_facts(dd))
                want = {pl: (res.places.get(pl), res.points.get(pl, 0)) for pl in stored}
                assert stored == want, (round_, write, fmt, rule, size)
    assert races == []
