"""Corrections that add: an event or a hand added to a filed deal from its page."""

from decimal import Decimal

import pytest
from django.urls import reverse

import scoring
from tests.views.helpers import open_deal, play_deals
from tracker.models import Correction, DealEvent
from tracker.services import deal_event_record, deal_tap, share_link_create

pytestmark = pytest.mark.django_db

PENALTIES = scoring.Options(penalties=True)


def deal_url(session, number=1):
    return reverse("member:deal", kwargs={"session_id": session.pk, "number": number})


def add(client, session, *, number=1, key="", path=None, **event):
    deal = session.deals.get(number=number)
    data = {"deal": deal.pk, "key": key, **event}
    return client.post(path or f"{deal_url(session, number)}add/", data)


def ledger(session, number=1):
    deal = session.deals.get(number=number)
    return [
        (line.payer.name, line.payee.name, line.amount, line.reason)
        for line in deal.ledger_lines.select_related("payer", "payee").order_by("position")
    ]


def live_events(session, number=1):
    deal = session.deals.get(number=number)
    return list(deal.dealevents.filter(undone_at__isnull=True).order_by("seq"))


def test_the_page_offers_what_the_rules_allow(member, make_session, actor):
    session, players = make_session()
    play_deals(session, players, 1, actor)

    sheets = member.get(deal_url(session)).context["sheets"]

    assert sheets.cutup_beaten is False
    assert sheets.guaransheed == []
    assert sheets.instant_win == []
    assert sheets.hands == []

    session, players = make_session(
        options=scoring.Options(penalties=True, guaransheed=True, instant_wins=True)
    )
    play_deals(session, players, 1, actor)

    page = member.get(deal_url(session))

    sheets = page.context["sheets"]
    everyone = ["Alice", "Ben", "Cara", "Dev"]
    assert sheets.cutup_beaten is False  # no cutup beat a 2 in it: none to beat for double
    assert [name for _id, name in sheets.guaransheed] == everyone
    assert [name for _id, name in sheets.instant_win] == everyone
    # Alice, Cara and Ben placed; Dev, untapped, is the loser and the one holding cards.
    assert [name for _id, name in sheets.hands] == ["Dev"]
    assert "+ 2 chopped" in page.text


def test_adding_a_chopped_two_recomputes_the_ledger(member, make_session, actor):
    session, players = make_session(options=PENALTIES)
    play_deals(session, players, 1, actor)

    response = add(
        member,
        session,
        type="two_beaten",
        by=players["Ben"].pk,
        owner=players["Dev"].pk,
        beaten_with="cutup",
        black=1,
        red=1,
        reason="Forgot Ben's cut",
    )

    assert response.status_code == 302
    assert response.url == deal_url(session)
    (event,) = live_events(session)
    assert (event.type, event.by.name, event.owner.name, event.black, event.red) == (
        "two_beaten",
        "Ben",
        "Dev",
        1,
        1,
    )
    assert ("Dev", "Ben", Decimal("2.5"), "two_beaten") in ledger(session)
    assert Correction.objects.get().reason == "Forgot Ben's cut"
    page = member.get(deal_url(session))
    assert "Ben chopped Dev&#x27;s 2s with a cutup (1 black, 1 red)" in page.text


def test_a_cutup_beaten_on_top_of_an_added_chop(member, make_session, actor):
    session, players = make_session(options=PENALTIES)
    play_deals(session, players, 1, actor)
    add(
        member,
        session,
        key="a",
        type="two_beaten",
        by=players["Ben"].pk,
        owner=players["Dev"].pk,
        beaten_with="cutup",
        black=1,
        red=0,
    )

    response = add(
        member,
        session,
        key="b",
        type="cutup_beaten",
        by=players["Cara"].pk,
        owner=players["Ben"].pk,
    )

    assert response.status_code == 302
    assert ("Ben", "Cara", Decimal("2"), "cutup_beaten") in ledger(session)
    assert Correction.objects.count() == 2


def test_a_cutup_bombed_is_said_so_and_ends_the_chain(member, make_session, actor):
    session, players = make_session(options=PENALTIES)
    play_deals(session, players, 1, actor)
    cut = {"type": "two_beaten", "beaten_with": "cutup", "black": 1, "red": 0}
    add(member, session, key="a", by=players["Ben"].pk, owner=players["Dev"].pk, **cut)
    bombed = {"type": "cutup_beaten", "beaten_with": "bomb"}
    add(member, session, key="b", by=players["Cara"].pk, owner=players["Ben"].pk, **bombed)

    response = add(
        member,
        session,
        key="c",
        type="cutup_beaten",
        by=players["Dev"].pk,
        owner=players["Cara"].pk,
    )

    assert ("Ben", "Cara", Decimal("2"), "cutup_beaten") in ledger(session)
    assert "beating a bomb earns nothing more" in response.text
    page = member.get(deal_url(session))
    assert "Cara bombed Ben&#x27;s cutup" in page.text
    assert Correction.objects.count() == 2


def test_a_refused_addition_shows_the_reason_and_changes_nothing(member, make_session, actor):
    session, players = make_session(options=PENALTIES)
    play_deals(session, players, 1, actor)
    before = ledger(session)

    response = add(
        member, session, type="cutup_beaten", by=players["Cara"].pk, owner=players["Ben"].pk
    )

    assert response.status_code == 400
    assert "Not saved: That correction does not add up: Ben has no cutup that beat a 2" in (
        response.text
    )
    assert live_events(session) == []
    assert Correction.objects.count() == 0
    assert ledger(session) == before


def test_a_form_that_does_not_make_sense_is_refused(member, make_session, actor):
    session, players = make_session(options=PENALTIES)
    play_deals(session, players, 1, actor)

    same = add(
        member,
        session,
        type="two_beaten",
        by=players["Ben"].pk,
        owner=players["Ben"].pk,
        beaten_with="bomb",
        black=1,
    )
    none = add(
        member,
        session,
        type="two_beaten",
        by=players["Ben"].pk,
        owner=players["Dev"].pk,
        beaten_with="bomb",
        black=0,
        red=0,
    )
    odd = add(member, session, type="tap", player=players["Ben"].pk)

    assert [r.status_code for r in (same, none, odd)] == [400, 400, 400]
    assert "Pick two different players." in same.text
    assert "Pick which 2s were chopped." in none.text
    assert "Unknown kind of event." in odd.text
    assert Correction.objects.count() == 0


def test_a_retried_addition_is_applied_once(member, make_session, actor):
    session, players = make_session(options=PENALTIES)
    play_deals(session, players, 1, actor)
    chop = {
        "type": "two_beaten",
        "by": players["Ben"].pk,
        "owner": players["Dev"].pk,
        "beaten_with": "bomb",
        "black": 1,
    }

    add(member, session, key="one-render", **chop)
    add(member, session, key="one-render", **chop)

    assert len(live_events(session)) == 1
    assert Correction.objects.count() == 1


def test_adding_a_hand_under_loser_pays_adds_its_penalties(member, make_session, actor):
    session, players = make_session(options=PENALTIES)
    play_deals(session, players, 1, actor)

    add(
        member,
        session,
        type="hand",
        player=players["Dev"].pk,
        cards=6,
        black_twos=1,
        red_twos=0,
        cutups=0,
        bombs=1,
    )

    (hand,) = live_events(session)
    assert (hand.player.name, hand.cards, hand.black_twos, hand.bombs) == ("Dev", 6, 1, 1)
    money = ledger(session)
    assert ("Dev", "Alice", Decimal("1"), "unused_black_two") in money
    assert ("Dev", "Alice", Decimal("3"), "unused_bomb") in money


def test_saving_a_hand_again_replaces_the_one_recorded(member, make_session, actor):
    session, players = make_session(format="winner_takes_all", stake_rule="per_card", stake="0.50")
    deal = open_deal(session)
    deal_tap(deal_id=deal.pk, player_id=players["Alice"].pk, actor=actor)
    for name, cards in (("Ben", 5), ("Cara", 11), ("Dev", 1)):
        deal_event_record(
            deal_id=deal.pk, event=scoring.Hand(player=players[name].pk, cards=cards), actor=actor
        )
    sheets = member.get(deal_url(session)).context["sheets"]
    assert [name for _id, name in sheets.hands] == ["Ben", "Cara", "Dev"]
    assert sheets.known_hands == ["Ben held 5 cards", "Cara held 11 cards", "Dev held 1 card"]

    response = add(member, session, type="hand", player=players["Ben"].pk, cards=3)

    assert response.status_code == 302
    hands = {event.player.name: event.cards for event in live_events(session)}
    assert hands == {"Ben": 3, "Cara": 11, "Dev": 1}
    assert ("Ben", "Alice", Decimal("1.5"), "cards_left") in ledger(session)
    old = DealEvent.objects.get(player=players["Ben"], cards=5)
    assert old.undone_at is not None  # kept as history, struck through


def test_a_hand_for_the_winner_is_refused(member, make_session, actor):
    session, players = make_session(format="winner_takes_all", stake_rule="per_card", stake="0.50")
    deal = open_deal(session)
    deal_tap(deal_id=deal.pk, player_id=players["Alice"].pk, actor=actor)
    for name in ("Ben", "Cara", "Dev"):
        deal_event_record(
            deal_id=deal.pk, event=scoring.Hand(player=players[name].pk, cards=2), actor=actor
        )

    response = add(member, session, type="hand", player=players["Alice"].pk, cards=3)

    assert response.status_code == 400
    # The page offers only the players holding cards; the service refuses the rest.
    assert "Not saved: That correction does not add up" in response.text
    assert Correction.objects.count() == 0


def test_a_forgotten_guaransheed(member, make_session, actor):
    session, players = make_session(options=scoring.Options(guaransheed=True))
    play_deals(session, players, 1, actor)  # Alice first

    unapproved = add(member, session, type="guaransheed", player=players["Alice"].pk)
    response = add(member, session, type="guaransheed", player=players["Alice"].pk, approved="on")

    assert unapproved.status_code == 400
    assert response.status_code == 302
    money = ledger(session)
    assert [line for line in money if line[3] == "guaransheed_won"] == [
        ("Ben", "Alice", Decimal("1"), "guaransheed_won"),
        ("Cara", "Alice", Decimal("1"), "guaransheed_won"),
        ("Dev", "Alice", Decimal("1"), "guaransheed_won"),
    ]
    assert member.get(deal_url(session)).context["sheets"].guaransheed == []


def test_an_instant_win_replaces_the_finishing_order(member, make_session, actor):
    session, players = make_session(options=scoring.Options(instant_wins=True))
    play_deals(session, players, 1, actor)

    response = add(member, session, type="instant_win", player=players["Dev"].pk, kind="dragon")

    assert response.status_code == 302
    page = member.get(deal_url(session))
    assert page.context["finish"][0] == "Dev 1st (3)"
    assert {line[1] for line in ledger(session)} == {"Dev"}


def test_an_open_deal_is_not_corrected(member, table):
    session, players = table

    response = add(member, session, type="instant_win", player=players["Dev"].pk, kind="dragon")

    assert response.status_code == 409
    assert "This deal is still open" in response.text


def test_a_viewer_link_cannot_add(client, make_session, actor):
    session, players = make_session(options=PENALTIES)
    play_deals(session, players, 1, actor)
    link = share_link_create(session_id=session.pk, role="viewer", actor=actor)

    page = client.get(f"/s/{link.token}/deals/1/")
    response = add(
        client,
        session,
        path=f"/s/{link.token}/deals/1/add/",
        type="two_beaten",
        by=players["Ben"].pk,
        owner=players["Dev"].pk,
        beaten_with="bomb",
        black=1,
    )

    assert page.context["sheets"] is None
    assert "/add/" not in page.text
    assert response.status_code == 403
    assert Correction.objects.count() == 0


def test_a_scorer_link_can_add(client, make_session, actor):
    session, players = make_session(options=PENALTIES)
    play_deals(session, players, 1, actor)
    link = share_link_create(session_id=session.pk, role="scorer", actor=actor)

    response = add(
        client,
        session,
        path=f"/s/{link.token}/deals/1/add/",
        type="two_beaten",
        by=players["Ben"].pk,
        owner=players["Dev"].pk,
        beaten_with="bomb",
        black=1,
    )

    assert response.status_code == 302
    assert Correction.objects.get().made_via == link
