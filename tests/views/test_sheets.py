"""The tap screen and the deal page offer what `scoring.allowed` allows, through one
partial template (`templates/deals/_sheets.html`)."""

import pytest
from django.urls import reverse

import scoring
from tests.views.helpers import htmx, open_deal, play_deals
from tracker.records import deal_facts
from tracker.services import deal_event_record, deal_tap

pytestmark = pytest.mark.django_db

EVERYTHING = scoring.Options(
    penalties=True, guaransheed=True, got_to_get_in=True, instant_wins=True
)


def offered(sheets):
    """What a screen's sheets offer, by name: the same shape as `allowed` below."""
    names = dict(sheets.players)
    return {
        "two_beaten": sheets.two_beaten,
        "cutup_beaten": sheets.cutup_beaten,
        "cutup_owners": [names[id] for id, _name in sheets.cutup_owners],
        "guaransheed": [names[id] for id, _name in sheets.guaransheed],
        "instant_win": [names[id] for id, _name in sheets.instant_win],
        "hands": [names[id] for id, _name in sheets.hands],
    }


def allowed(deal):
    deal.refresh_from_db()
    facts = deal_facts(deal)
    rules = scoring.allowed(facts)
    return {
        "two_beaten": rules.two_beaten,
        "cutup_beaten": rules.cutup_beaten,
        "cutup_owners": [facts.names[p] for p in rules.cutup_owners],
        "guaransheed": [facts.names[p] for p in rules.guaransheed],
        "instant_win": [facts.names[p] for p in rules.instant_win],
        "hands": [facts.names[p] for p in rules.hands],
    }


def tap_screen(client, session):
    response = client.get(reverse("member:tap", kwargs={"session_id": session.pk}))
    assert "deals/_sheets.html" in [template.name for template in response.templates]
    return response.context["screen"].sheets


def deal_page(client, session, number=1):
    url = reverse("member:deal", kwargs={"session_id": session.pk, "number": number})
    response = client.get(url)
    assert "deals/_sheets.html" in [template.name for template in response.templates]
    return response.context["sheets"]


def test_an_empty_open_deal_offers_the_claim_and_the_declaration(member, make_session):
    session, _players = make_session(options=EVERYTHING)
    deal = open_deal(session)

    sheets = offered(tap_screen(member, session))

    assert sheets == allowed(deal)
    assert sheets["instant_win"] == ["Alice", "Ben", "Cara", "Dev"]
    assert sheets["guaransheed"] == ["Alice", "Ben", "Cara", "Dev"]


def test_after_a_tap_neither_claim_nor_declaration_is_offered(member, make_session, actor):
    session, players = make_session(options=EVERYTHING)
    deal = open_deal(session)
    deal_tap(deal_id=deal.pk, player_id=players["Alice"].pk, actor=actor)

    sheets = offered(tap_screen(member, session))

    assert sheets == allowed(deal)
    assert (sheets["instant_win"], sheets["guaransheed"]) == ([], [])
    assert sheets["hands"] == ["Ben", "Cara", "Dev"]  # still holding: unused 2s and bombs


def test_a_filed_deal_offers_a_claim_while_it_has_no_events(member, make_session, actor):
    """The divergence the one partial closed: a correction's claim replaces the finishing
    order, so a filed deal with taps only may still take one; with an event it may not."""
    session, players = make_session(options=EVERYTHING)
    play_deals(session, players, 2, actor)
    first, second = session.deals.get(number=1), session.deals.get(number=2)
    deal_event_record(
        deal_id=open_deal(session).pk,
        event=scoring.Guaransheed(player=players["Ben"].pk),
        actor=actor,
    )

    with_taps_only = offered(deal_page(member, session, 1))

    assert with_taps_only == allowed(first)
    assert with_taps_only["instant_win"] == ["Alice", "Ben", "Cara", "Dev"]
    assert second.status == "filed"
    assert offered(deal_page(member, session, 2)) == allowed(second)


def test_the_tap_screen_answers_a_write_with_sheets_from_the_rules_too(member, make_session, actor):
    session, players = make_session(options=EVERYTHING)
    deal = open_deal(session)
    url = reverse("member:event", kwargs={"session_id": session.pk})
    data = {"type": "guaransheed", "deal": deal.pk, "player": players["Cara"].pk}

    response = member.post(url, {**data, "approved": "on", "key": "k"}, **htmx())

    assert offered(response.context["screen"].sheets) == allowed(deal)
    assert offered(response.context["screen"].sheets)["guaransheed"] == []


def test_the_instant_win_sheet_names_five_consecutive_pairs_with_its_option(member, make_session):
    options = scoring.Options(instant_wins=True, five_consecutive_pairs=True)
    session, _players = make_session(options=options)

    kinds = tap_screen(member, session).instant_win_kinds

    assert kinds == [
        ("six_pairs", "Six pairs"),
        ("five_consecutive_pairs", "5 consecutive pairs (no 2s)"),
        ("three_triples", "Three triples in a row"),
        ("dragon", "Dragon (3 to A)"),
        ("four_twos", "Four 2s"),
    ]
    no_option, _players = make_session(options=scoring.Options(instant_wins=True))
    assert "five_consecutive_pairs" not in dict(tap_screen(member, no_option).instant_win_kinds)


def test_the_cutup_sheet_offers_only_cutups_that_stand_and_asks_what_beat_it(
    member, make_session, actor
):
    session, players = make_session(options=EVERYTHING)
    deal = open_deal(session)
    for by, owner, beater in (("Ben", "Alice", "cutup"), ("Cara", "Dev", "bomb")):
        two = scoring.TwoBeaten(
            by=players[by].pk,
            owner=players[owner].pk,
            beaten_with=scoring.Beater(beater),
            black=1,
        )
        deal_event_record(deal_id=deal.pk, event=two, actor=actor)

    response = member.get(reverse("member:tap", kwargs={"session_id": session.pk}))

    sheets = offered(response.context["screen"].sheets)
    assert sheets == allowed(deal)
    assert sheets["cutup_owners"] == ["Ben"]  # Cara's bomb cannot be doubled
    form = response.text.split('value="cutup_beaten"')[1].split("</form>")[0]
    assert form.count('name="owner"') == 1
    # What beat it moves money, so it is asked, never preselected.
    assert 'name="beaten_with" value="cutup" required>' in form
    assert 'name="beaten_with" value="bomb" required>' in form
