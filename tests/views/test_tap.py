"""The tap screen: taps, undo, events, End match, retries and who may tap."""

import re

import pytest
from django.urls import reverse

from scoring import Hand, Options
from tests.views.helpers import htmx, open_deal, play_deals
from tracker.access import Actor
from tracker.models import DealEvent, Session, Tap
from tracker.services import share_link_create, share_link_revoke

pytestmark = pytest.mark.django_db


def url(session, name="tap"):
    return reverse(f"member:{name}", kwargs={"session_id": session.pk})


def tap(client, session, player, *, key="", **extra):
    data = {"deal": open_deal(session).pk, "player": player.pk, "key": key, **extra}
    return client.post(url(session, "tap_player"), data, **htmx())


def two_beaten(session, by, owner, beaten_with, **choice):
    """The sheet's form for a 2 chopped or bombed in the open deal: `by` beat `owner`'s 2s;
    `choice` is the 2s picked (`twos`, or `black` and `red`) and any `key`."""
    return {
        "type": "two_beaten",
        "deal": open_deal(session).pk,
        "by": by.pk,
        "owner": owner.pk,
        "beaten_with": beaten_with,
        **choice,
    }


def test_tap_screen_shows_players_in_seat_order(member, table):
    session, _players = table

    response = member.get(url(session))

    assert response.status_code == 200
    names = [card.name for card in response.context["screen"].players]
    assert names == ["Alice", "Ben", "Cara", "Dev"]
    assert "The table picks the dealer · 3♠ leads" in response.text
    assert "Nothing to undo" in response.text
    assert 'hx-headers=\'{"X-CSRFToken"' in response.text


def test_a_tap_answers_htmx_with_the_fragment_only(member, table):
    session, players = table

    response = tap(member, session, players["Alice"])

    assert response.status_code == 200
    assert "<html" not in response.text
    assert response.text.startswith('<div id="tap-screen"')
    assert '<span class="badge">1st</span>' in response.text
    assert "Undo Alice 1st" in response.text


def test_a_tap_without_javascript_redirects_back_to_the_screen(member, table):
    session, players = table
    data = {"deal": open_deal(session).pk, "player": players["Alice"].pk}

    response = member.post(url(session, "tap_player"), data)

    assert response.status_code == 302
    assert response.url == url(session)


def test_the_third_tap_files_and_the_next_deal_opens_with_a_summary(member, table):
    session, players = table
    for name in ("Alice", "Cara"):
        tap(member, session, players[name])

    response = tap(member, session, players["Ben"])

    screen = response.context["screen"]
    assert screen.deal.number == 2
    assert screen.last_deal == (
        "Deal 1: Alice 3 · Cara 2 · Ben 1 · Dev pays 1.00 USD each (loser pays)"
    )
    assert (screen.dealer_line, screen.leader_line) == ("Dev deals", "Alice leads")
    assert screen.undo == "Undo deal 1: Ben 3rd"  # it would reach back into the filed deal
    assert (screen.undo_reopens, screen.undo_deal) == (True, 1)


def test_undo_asks_before_it_reaches_back_into_the_filed_deal(member, table):
    session, players = table
    for name in ("Alice", "Cara", "Ben"):
        tap(member, session, players[name])

    response = member.post(url(session, "undo"), {"deal": open_deal(session).pk}, **htmx())

    screen = response.context["screen"]
    assert screen.deal.number == 2  # nothing re-opened
    assert screen.message == (
        "Not saved: Undo would re-open deal 1, which is filed: confirm it to go on."
    )
    assert Tap.objects.filter(undone_at__isnull=True).count() == 3


def test_undo_reaches_back_into_the_filed_deal_once_confirmed(member, table):
    session, players = table
    for name in ("Alice", "Cara", "Ben"):
        tap(member, session, players[name])

    response = member.post(
        url(session, "undo"),
        {"deal": open_deal(session).pk, "key": "u1", "reopen": "1"},
        **htmx(),
    )

    screen = response.context["screen"]
    assert screen.deal.number == 1
    assert [card.badge for card in screen.players] == ["1st", "", "2nd", ""]
    assert screen.undo == "Undo Cara 2nd"


def test_the_same_key_and_body_is_applied_once(member, table):
    session, players = table

    first = tap(member, session, players["Alice"], key="render-1")
    deal = open_deal(session)
    again = member.post(
        url(session, "tap_player"),
        {"deal": deal.pk, "player": players["Alice"].pk, "key": "render-1"},
        **htmx(),
    )

    assert (first.status_code, again.status_code) == (200, 200)
    assert "Not saved" not in again.text  # a replay, not "Alice is already out"
    assert Tap.objects.filter(deal=deal).count() == 1


def test_the_same_key_with_another_player_says_the_screen_was_stale(member, table):
    """A screen's key applied once already (its answer lost, say) is out of date: another
    button of it is refused as such, and the screen shown as it is now."""
    session, players = table

    tap(member, session, players["Alice"], key="render-1")
    response = tap(member, session, players["Cara"], key="render-1")

    assert [t.player.name for t in Tap.objects.order_by("seq")] == ["Alice"]
    assert "This screen was out of date, so nothing was saved" in response.text


def test_undo_retried_with_its_key_undoes_once(member, table):
    session, players = table
    for name in ("Alice", "Cara"):
        tap(member, session, players[name])
    data = {"deal": open_deal(session).pk, "key": "render-7"}

    member.post(url(session, "undo"), data, **htmx())
    member.post(url(session, "undo"), data, **htmx())

    assert [t.player.name for t in Tap.objects.filter(undone_at__isnull=True)] == ["Alice"]


def test_a_refused_tap_says_why_and_changes_nothing(member, table):
    session, players = table
    tap(member, session, players["Alice"])

    response = tap(member, session, players["Alice"])
    plain = member.post(
        url(session, "tap_player"), {"deal": open_deal(session).pk, "player": players["Alice"].pk}
    )

    assert response.status_code == 200  # htmx swaps the screen with the message on it
    assert "Not saved: Alice is already out (1st)." in response.text
    assert plain.status_code == 400
    assert Tap.objects.count() == 1


def test_a_tap_on_a_filed_deal_is_a_conflict(member, table):
    session, players = table
    deal = open_deal(session)
    for name in ("Alice", "Cara", "Ben"):
        tap(member, session, players[name])

    response = member.post(
        url(session, "tap_player"), {"deal": deal.pk, "player": players["Dev"].pk}
    )

    assert response.status_code == 409
    assert "already filed" in response.text


def test_a_2_chopped_from_the_sheet(member, table):
    session, players = table
    data = two_beaten(session, players["Ben"], players["Alice"], "cutup", black="1", red="1")

    response = member.post(url(session, "event"), data, **htmx())

    event = DealEvent.objects.get()
    assert (event.by, event.owner, event.black, event.red) == (
        players["Ben"],
        players["Alice"],
        1,
        1,
    )
    assert "Ben chopped Alice&#x27;s 2s with a cutup (1 black, 1 red)" in response.text


def test_guaransheed_needs_everyones_approval(make_session, member):
    from scoring import Options

    session, players = make_session(options=Options(guaransheed=True))
    data = {"type": "guaransheed", "deal": open_deal(session).pk, "player": players["Cara"].pk}

    refused = member.post(url(session, "event"), data, **htmx())
    accepted = member.post(url(session, "event"), {**data, "approved": "on"}, **htmx())

    assert "Everyone at the table must approve: tick the box." in refused.text
    assert "Cara declared Guaransheed" in accepted.text
    assert DealEvent.objects.filter(type="guaransheed").count() == 1


def test_card_counts_file_a_pay_by_the_card_deal(make_session, member):
    session, players = make_session(format="winner_takes_all", stake_rule="per_card", stake="0.50")
    tap(member, session, players["Alice"])
    screen = member.get(url(session)).context["screen"]
    assert screen.mode == "hands"
    assert [card.name for card in screen.hands_due] == ["Ben", "Cara", "Dev"]
    assert screen.card_counts == list(range(14))

    for name, cards in (("Ben", 5), ("Cara", 11), ("Dev", 1)):
        response = member.post(
            url(session, "event"),
            {
                "type": "hand",
                "deal": open_deal(session).pk,
                "player": players[name].pk,
                "cards": cards,
            },
            **htmx(),
        )

    assert response.context["screen"].last_deal == (
        "Deal 1: Alice 1 · Ben → Alice 2.50 USD (cards left) · Cara → Alice 5.50 USD "
        "(cards left) · Dev → Alice 0.50 USD (cards left)"
    )


def test_five_players_tap_the_loser(make_session, member):
    session, players = make_session(players=("Alice", "Ben", "Cara", "Dev", "Eve"))
    for name in ("Alice", "Ben", "Cara"):
        tap(member, session, players[name])
    assert member.get(url(session)).context["screen"].mode == "loser"

    response = member.post(
        url(session, "tap_player"),
        {"deal": open_deal(session).pk, "loser": players["Eve"].pk},
        **htmx(),
    )

    assert "Eve pays 1.00 USD each" in response.context["screen"].last_deal


def test_instant_win_files_the_deal(make_session, member):
    from scoring import Options

    session, players = make_session(options=Options(instant_wins=True))
    data = {
        "type": "instant_win",
        "deal": open_deal(session).pk,
        "player": players["Dev"].pk,
        "kind": "dragon",
    }

    response = member.post(url(session, "event"), data, **htmx())

    assert response.context["screen"].last_deal.startswith("Deal 1: Dev 3 · ")


def test_end_match_asks_first_then_ends_the_session(member, table):
    session, players = table
    tap(member, session, players["Alice"])

    ask = member.get(url(session, "end"))
    end = member.post(url(session, "end"), {"deal": open_deal(session).pk})

    assert ask.status_code == 200
    assert "Yes, end the match" in ask.text
    # Nothing re-opens a session: the question says so (session 26's review).
    assert "It cannot be undone: no more deals can be played in this session." in ask.text
    assert end.status_code == 302
    assert end.url == url(session, "standings")
    assert Session.objects.get().ended_at is not None
    assert member.get(url(session)).context["screen"].mode == "ended"


def test_a_viewer_link_cannot_tap(client, table, actor):
    session, players = table
    link = share_link_create(session_id=session.pk, role="viewer", actor=actor)
    base = f"/s/{link.token}/"
    deal = open_deal(session)

    responses = [
        client.post(base + "tap/", {"deal": deal.pk, "player": players["Alice"].pk}),
        client.post(base + "undo/", {"deal": deal.pk}),
        client.post(base + "event/", {"type": "hand", "deal": deal.pk}),
        client.post(base + "end/"),
    ]

    assert [response.status_code for response in responses] == [403] * 4
    assert Tap.objects.count() == 0
    assert client.get(base).url == base + "standings/"


def test_a_scorer_link_taps_without_a_login(client, table, actor):
    session, players = table
    link = share_link_create(session_id=session.pk, role="scorer", actor=actor)

    page = client.get(f"/s/{link.token}/")
    response = client.post(
        f"/s/{link.token}/tap/",
        {"deal": open_deal(session).pk, "player": players["Ben"].pk},
        **htmx(),
    )

    assert page.status_code == 200
    assert f'hx-post="/s/{link.token}/tap/"' in page.text
    assert response.status_code == 200
    recorded = Tap.objects.get()
    assert (recorded.recorded_via, recorded.recorded_by) == (link, None)


def test_a_revoked_link_is_gone(client, table, actor):
    session, _players = table
    link = share_link_create(session_id=session.pk, role="scorer", actor=actor)
    share_link_revoke(link_id=link.pk, actor=actor)

    assert client.get(f"/s/{link.token}/").status_code == 404
    assert client.get("/s/not-a-token/standings/").status_code == 404


def test_a_non_member_gets_404(stranger, table):
    session, players = table

    assert stranger.get(url(session)).status_code == 404
    response = stranger.post(
        url(session, "tap_player"), {"deal": open_deal(session).pk, "player": players["Ben"].pk}
    )
    assert response.status_code == 404


def test_anonymous_is_sent_to_sign_in(client, table):
    session, _players = table

    response = client.get(url(session))

    assert response.status_code == 302
    assert response.url == f"{reverse('login')}?next={url(session)}"


@pytest.mark.parametrize("deals", [10, 200])
def test_tap_and_standings_pages_cost_the_same_queries_at_10_and_200_deals(
    member, table, deals, django_assert_num_queries
):
    session, players = table
    play_deals(session, players, deals, Actor(user=session.created_by))

    # Tap screen: auth session, user, session (membership), open deal, its players by
    # seat with names, its taps and events with the next deal's id (one query),
    # not-played marks (deal_view), then the last deal and its players, ledger, taps and
    # events (summary and Undo) — 11.
    with django_assert_num_queries(11):
        assert member.get(url(session), **htmx()).status_code == 200
    # Standings: auth session, user, session, then the running totals with names
    # (session_standings) and points by deal — 5.
    with django_assert_num_queries(5):
        assert member.get(url(session, "standings")).status_code == 200


def test_the_menu_switches_language_back_to_the_tap_screen(member, table):
    session, players = table

    fragment = tap(member, session, players["Alice"]).text  # rendered for POST .../tap/

    assert f'name="next" value="{url(session)}"' in fragment


def test_tap_screen_disables_the_tap_of_a_player_whose_hand_blocks_it(member, make_session, actor):
    """The player buttons follow `scoring.allowed(...).tap`: a player whose hand is
    recorded with cards left cannot go out, so their button is disabled rather than
    offering a tap the rules refuse ("Ben's hand is recorded with cards left")."""
    from tracker.services import deal_event_record

    session, players = make_session(options=Options(penalties=True))
    deal = session.deals.get()
    ben = players["Ben"].pk
    deal_event_record(deal_id=deal.pk, event=Hand(ben, cards=5), actor=actor)

    html = member.get(f"/sessions/{session.pk}/").content.decode()
    button = re.search(rf'<button[^>]*class="player__tap"[^>]*value="{ben}"[^>]*>', html)

    assert button is not None
    assert "disabled" in button.group(0)


def test_nothing_that_moves_money_is_preselected_on_the_chop_sheet(member, make_session):
    """A red 2 chopped was recorded as a black and a red when Black 2s started at 1: the
    sheet now asks which 2s, and cutup or bomb, with nothing chosen."""
    session, _players = make_session(options=Options(penalties=True))

    html = member.get(url(session)).content.decode()
    sheet = html[html.index('value="two_beaten"') : html.index("</form>", html.index("two_beaten"))]

    assert 'name="twos"' in sheet
    assert 'name="black"' not in sheet and 'name="red"' not in sheet
    assert re.findall(r'<input type="radio" name="(?:twos|beaten_with)"[^>]*checked', sheet) == []


def test_a_red_2_chopped_is_one_red_2(member, make_session):
    session, players = make_session(stake="2.00", options=Options(penalties=True))
    data = two_beaten(session, players["Ben"], players["Cara"], "cutup", twos="0-1", key="chop-1")

    member.post(url(session, "event"), data, **htmx())

    event = DealEvent.objects.get()
    assert (event.black, event.red) == (0, 1)
    assert [(line.amount, line.reason) for line in open_deal(session).ledger_lines.all()] == []
    preview = member.get(url(session, "event_preview"), {**data, "key": "chop-2"}, **htmx())
    assert "Cara pays Ben 3.00 USD" in preview.content.decode()  # a second red 2 would


def test_the_save_button_names_the_money_before_it_is_pressed(member, make_session):
    session, players = make_session(stake="2.00", options=Options(penalties=True))
    data = two_beaten(session, players["Ben"], players["Cara"], "bomb", twos="1-1")

    said = member.get(url(session, "event_preview"), data, **htmx()).content.decode()
    unfinished = member.get(
        url(session, "event_preview"), {**data, "twos": ""}, **htmx()
    ).content.decode()
    refused = member.get(
        url(session, "event_preview"), {**data, "owner": players["Ben"].pk}, **htmx()
    ).content.decode()

    assert "Save · Cara pays Ben 10.00 USD" in said  # 2 stakes for black, 3 for red, bombed
    assert ">Save<" in unfinished
    assert ">Save<" in refused  # the form's own check: two different players
    assert DealEvent.objects.count() == 0  # asking writes nothing


def test_under_loser_pays_the_unused_cards_sheet_does_not_ask_the_card_count(member, make_session):
    session, players = make_session(options=Options(penalties=True))
    screen = member.get(url(session)).context["screen"]
    data = {
        "type": "hand",
        "deal": open_deal(session).pk,
        "player": players["Dev"].pk,
        "red_twos": 1,
        "bombs": 1,
        "key": "hand-1",
    }

    response = member.post(url(session, "event"), data, **htmx())

    assert screen.sheets.cards_pay is False
    assert response.context["screen"].message == ""
    hand = DealEvent.objects.get(type="hand")
    assert (hand.cards, hand.red_twos, hand.bombs) == (4, 1, 1)  # the fewest they take


def test_the_loser_is_asked_as_its_own_question_with_every_candidate_equal(member, make_session):
    session, players = make_session(players=("Alice", "Ben", "Cara", "Dev", "Eve"))
    for name in ("Alice", "Ben", "Cara"):
        tap(member, session, players[name])

    screen = member.get(url(session)).context["screen"]

    assert screen.mode == "loser"
    assert [card.name for card in screen.losers] == ["Dev", "Eve"]
    assert [card.name for card in screen.players if card.may_tap] == ["Dev", "Eve"]
    assert screen.status_line == ""  # the question says it


def test_a_following_phone_hears_nothing_until_the_session_moves_on(member, table):
    session, players = table
    version = member.get(url(session)).context["screen"].version

    unchanged = member.get(url(session), {"seen": version}, **htmx())
    tap(member, session, players["Alice"])
    changed = member.get(url(session), {"seen": version}, **htmx())

    assert unchanged.status_code == 204
    assert changed.status_code == 200
    assert changed.context["screen"].version == version + 1


@pytest.mark.parametrize("deals", [10, 200])
def test_a_tap_s_screen_is_drawn_from_what_the_write_knew(
    member, table, deals, django_assert_num_queries
):
    """The answer to a tap that leaves the deal open reads nothing again: the same screen
    as a fresh read, from the write's own deal state and the version it moved to."""
    session, players = table
    play_deals(session, players, deals, Actor(user=session.created_by))
    tap(member, session, players["Alice"])
    deal = open_deal(session).pk
    data = {"deal": deal, "player": players["Cara"].pk, "key": "k-cara"}

    # 1 sign-in session, 2 user, 3 session in reach, then the gate and the tap: 4 the
    # gate's savepoint (in the test's transaction; none of the service's own inside the
    # gate's: `gate.write_transaction`), 5 the lock that finds the deal in reach, 6 its
    # players, 7 its taps and events, 8 the tap, 9 places, 10 released, 11 the key.
    with django_assert_num_queries(11):
        written = member.post(url(session, "tap_player"), data, **htmx())
    read = member.get(url(session), **htmx())

    after, fresh = written.context["screen"], read.context["screen"]
    assert vars(after) == vars(fresh)
    assert after.version == Session.objects.get(pk=session.pk).version
    assert [card.place for card in after.players] == [1, None, 2, None]


def test_a_replayed_tap_s_screen_is_read(member, table):
    """A key sent again: its attempt was rolled back, so the screen is the one read."""
    session, players = table
    first = tap(member, session, players["Alice"], key="k-1")
    again = tap(member, session, players["Alice"], key="k-1")

    assert again.status_code == 200
    assert vars(again.context["screen"]) == vars(first.context["screen"])
    assert Tap.objects.filter(deal__session=session, undone_at__isnull=True).count() == 1


def test_an_event_s_and_an_undo_s_screens_are_the_ones_read(member, table):
    session, players = table
    tap(member, session, players["Alice"])
    cut = two_beaten(
        session, players["Ben"], players["Cara"], "bomb", black="1", red="0", key="k-cut"
    )

    recorded = member.post(url(session, "event"), cut, **htmx())
    assert vars(recorded.context["screen"]) == vars(
        member.get(url(session), **htmx()).context["screen"]
    )

    undone = member.post(url(session, "undo"), {"deal": cut["deal"], "key": "k-undo"}, **htmx())
    assert vars(undone.context["screen"]) == vars(
        member.get(url(session), **htmx()).context["screen"]
    )
    assert undone.context["screen"].events == []


def test_the_tap_screen_sends_who_it_showed_out_and_a_deal_moved_on_refuses_the_tap(
    member, table, actor
):
    """Two phones at one deal: the second's tap, drawn before the first's, is refused
    with a sentence and the screen as it is now, not given a place it never showed."""
    session, players = table
    screen = member.get(url(session, "tap")).text
    assert 'name="out_before" value=""' in screen
    assert tap(member, session, players["Alice"], key="k1", out_before="").status_code == 200
    assert (
        f'name="out_before" value="{players["Alice"].pk}"' in member.get(url(session, "tap")).text
    )

    refused = tap(member, session, players["Dev"], key="k2", out_before="")  # drawn before Alice

    assert refused.status_code == 200  # htmx swaps the screen with the message on it
    assert "Not saved: Someone else recorded on deal 1 meanwhile" in refused.text
    assert list(Tap.objects.values_list("player__name", flat=True)) == ["Alice"]
    # Drawn after Alice: saved.
    shown = str(players["Alice"].pk)
    assert tap(member, session, players["Dev"], key="k3", out_before=shown).status_code == 200
    assert Tap.objects.count() == 2


def test_a_tap_form_with_a_bad_after_is_refused(member, table):
    session, players = table

    response = tap(member, session, players["Ben"], out_before="1,x")

    assert "Pick players from the list." in response.text
    assert Tap.objects.count() == 0
