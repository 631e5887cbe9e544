"""Two phones at one deal (session 28, from a real-table review): an Undo takes back the
record its screen named or nothing, and an event recorded on both phones counts once."""

import pytest
from django.urls import reverse

from tests.views.helpers import ben_chops_alice, htmx, open_deal
from tracker.errors import Conflict
from tracker.models import Deal, DealEvent, Tap
from tracker.services import deal_tap, deal_undo

pytestmark = pytest.mark.django_db


def url(session, name):
    return reverse(f"member:{name}", kwargs={"session_id": session.pk})


def field(page, name):
    """The value of the tap screen's hidden input `name` (the first one)."""
    marker = f'name="{name}" value="'
    start = page.index(marker) + len(marker)
    return page[start : page.index('"', start)]


def chop(session, players, **extra):
    return {
        "type": "two_beaten",
        "deal": open_deal(session).pk,
        "by": players["Ben"].pk,
        "owner": players["Alice"].pk,
        "beaten_with": "cutup",
        "twos": "1-0",
        **extra,
    }


def test_the_screen_names_the_record_its_undo_takes_back(member, table, actor):
    session, players = table
    page = member.get(url(session, "tap")).text
    assert field(page, "undoes") == ""  # nothing to undo
    assert field(page, "seen") == "0"
    deal = open_deal(session)
    for name in ("Alice", "Cara"):
        deal_tap(deal_id=deal.pk, player_id=players[name].pk, actor=actor)

    page = member.get(url(session, "tap")).text
    assert field(page, "undoes") == "1:2"
    assert field(page, "seen") == "2"

    deal_tap(deal_id=deal.pk, player_id=players["Ben"].pk, actor=actor)  # files deal 1
    page = member.get(url(session, "tap")).text
    assert field(page, "undoes") == "1:3"  # Undo deal 1: Ben 3rd, from deal 2
    assert field(page, "seen") == "0"


def test_an_undo_drawn_before_another_phone_filed_the_deal_undoes_nothing(member, table, actor):
    """Found by a tester: phone A's Undo (meaning Cara 2nd) arrived just after phone B's
    tap filed deal 1, and took back B's tap: deal 1 re-opened without the question, and
    deal 2 went away."""
    session, players = table
    deal = open_deal(session)
    for name in ("Alice", "Cara"):
        deal_tap(deal_id=deal.pk, player_id=players[name].pk, actor=actor)
    drawn = member.get(url(session, "tap")).text  # phone A: "Undo Cara 2nd"
    deal_tap(deal_id=deal.pk, player_id=players["Ben"].pk, actor=actor)  # phone B files it

    response = member.post(
        url(session, "undo"),
        {"deal": field(drawn, "deal"), "undoes": field(drawn, "undoes"), "key": "u-a"},
        **htmx(),
    )

    assert response.context["screen"].message == (
        "Not saved: Someone else changed deal 1 meanwhile, so nothing was undone: look at the"
        " deal now and undo again if it still needs it."
    )
    assert session.deals.get(number=1).status == Deal.Status.FILED
    assert session.deals.filter(number=2).exists()
    assert Tap.objects.filter(undone_at__isnull=True).count() == 3


def test_the_offline_queue_hears_the_undo_refused_with_a_code(member, table, actor):
    session, players = table
    deal = open_deal(session)
    deal_tap(deal_id=deal.pk, player_id=players["Alice"].pk, actor=actor)
    deal_tap(deal_id=deal.pk, player_id=players["Dev"].pk, actor=actor)  # since the phone saw

    response = member.post(
        reverse("member:deal_undo", kwargs={"session_id": session.pk, "number": 1}),
        {"undoes": "1:1", "key": "u-q"},
        HTTP_ACCEPT="application/json",
    )

    assert response.status_code == 409
    assert response.json()["code"] == "deal_moved_on"
    assert Tap.objects.filter(undone_at__isnull=True).count() == 2


def test_an_undo_that_still_means_the_last_record_takes_it_back(member, table, actor):
    session, players = table
    deal = open_deal(session)
    deal_tap(deal_id=deal.pk, player_id=players["Alice"].pk, actor=actor)
    drawn = member.get(url(session, "tap")).text

    response = member.post(
        url(session, "undo"),
        {"deal": field(drawn, "deal"), "undoes": field(drawn, "undoes"), "key": "u-b"},
        **htmx(),
    )

    assert response.context["screen"].message == ""
    assert Tap.objects.filter(undone_at__isnull=True).count() == 0


@pytest.mark.parametrize("undoes", ["x", "1:0", "0:1", "1:2:3", "-1:1", "1:" + "9" * 30])
def test_an_unreadable_undoes_is_refused_and_changes_nothing(member, table, actor, undoes):
    session, players = table
    deal = open_deal(session)
    deal_tap(deal_id=deal.pk, player_id=players["Alice"].pk, actor=actor)

    response = member.post(url(session, "undo"), {"deal": deal.pk, "undoes": undoes})

    assert response.status_code == 400
    assert Tap.objects.filter(undone_at__isnull=True).count() == 1


def test_undo_sent_to_the_filed_deal_itself_asks_first(table, actor):
    """A page's undo, sent for a deal filed since it was drawn, re-opens it only once the
    person confirmed it, as undo reaching back from the next deal does."""
    session, players = table
    deal = open_deal(session)
    for name in ("Alice", "Cara", "Ben"):
        deal_tap(deal_id=deal.pk, player_id=players[name].pk, actor=actor)

    with pytest.raises(Conflict) as refused:
        deal_undo(deal_id=deal.pk, actor=actor, reopen=False)

    assert refused.value.code == "confirm_reopen"
    deal.refresh_from_db()
    assert deal.status == Deal.Status.FILED
    assert deal_undo(deal_id=deal.pk, actor=actor, reopen=True).deal.status == Deal.Status.OPEN


def test_a_chop_recorded_on_two_phones_counts_once(member, table, actor):
    """Found by a tester: "2 chopped" entered on both phones (one offline) charged Alice
    twice, and neither phone said so."""
    session, players = table
    drawn = member.get(url(session, "tap")).text
    ben_chops_alice(open_deal(session), players, actor, seen=0)  # the other phone

    response = member.post(
        url(session, "event"), chop(session, players, seen=field(drawn, "seen")), **htmx()
    )

    assert response.context["screen"].message == (
        "Not saved: Another phone recorded this on deal 1 a moment ago; it is not counted twice."
    )
    assert DealEvent.objects.count() == 1


def test_the_same_chop_twice_on_what_one_phone_showed_is_two_chops(member, table):
    """Ben can chop Alice's 2 twice in a deal: the second is drawn after the first."""
    session, players = table
    first = member.get(url(session, "tap")).text
    member.post(url(session, "event"), chop(session, players, seen=field(first, "seen")), **htmx())
    second = member.get(url(session, "tap")).text

    response = member.post(
        url(session, "event"), chop(session, players, seen=field(second, "seen")), **htmx()
    )

    assert response.context["screen"].message == ""
    assert DealEvent.objects.count() == 2


def test_another_event_since_does_not_stop_a_chop(member, table, actor):
    session, players = table
    drawn = member.get(url(session, "tap")).text
    deal = open_deal(session)
    deal_tap(deal_id=deal.pk, player_id=players["Dev"].pk, actor=actor)  # the other phone

    member.post(url(session, "event"), chop(session, players, seen=field(drawn, "seen")), **htmx())

    assert DealEvent.objects.count() == 1


@pytest.mark.parametrize("seen", ["x", "-1", "10001"])
def test_an_unreadable_seen_is_refused_and_changes_nothing(member, table, seen):
    session, players = table

    response = member.post(url(session, "event"), chop(session, players, seen=seen))

    assert response.status_code == 400
    assert DealEvent.objects.count() == 0
