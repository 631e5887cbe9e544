"""Deal history and correcting a filed deal."""

import pytest
from django.urls import reverse

from tests.views.helpers import play_deals
from tracker.models import Correction
from tracker.services import share_link_create

pytestmark = pytest.mark.django_db


def test_history_shows_each_deals_finish_and_ledger(member, table, actor):
    session, players = table
    play_deals(session, players, 2, actor)

    response = member.get(reverse("member:deals", kwargs={"session_id": session.pk}))

    cards = response.context["cards"]
    assert [card.deal.number for card in cards] == [3, 2, 1]
    assert cards[2].finish == ["Alice 1st (3)", "Cara 2nd (2)", "Ben 3rd (1)", "Dev 4th (0)"]
    assert [(m.payer, m.payee, str(m.amount)) for m in cards[2].money] == [
        ("Dev", "Alice", "1.000"),
        ("Dev", "Ben", "1.000"),
        ("Dev", "Cara", "1.000"),
    ]


def test_correcting_a_filed_deal(member, table, actor):
    session, players = table
    play_deals(session, players, 1, actor)
    deal_url = reverse("member:deal", kwargs={"session_id": session.pk, "number": 1})
    form = member.get(deal_url).context["form"]
    assert [field.value() for field in form.place_fields()] == [
        players["Alice"].pk,
        players["Cara"].pk,
        players["Ben"].pk,
    ]

    response = member.post(
        deal_url,
        {
            "place_1": players["Alice"].pk,
            "place_2": players["Ben"].pk,
            "place_3": players["Cara"].pk,
            "reason": "Ben was out before Cara",
        },
    )

    assert response.status_code == 302
    page = member.get(deal_url)
    assert page.context["finish"] == [
        "Alice 1st (3)",
        "Ben 2nd (2)",
        "Cara 3rd (1)",
        "Dev 4th (0)",
    ]
    assert Correction.objects.get().reason == "Ben was out before Cara"
    assert "<del>" in page.text  # the old taps stay, struck through
    # ...said replaced by the correction, not "taken back" as Undo's (session 26's review)
    assert page.text.count("(replaced by a correction)") == 3
    assert "(taken back)" not in page.text


def test_a_correction_that_does_not_add_up_is_explained(member, table, actor):
    session, players = table
    play_deals(session, players, 1, actor)
    deal_url = reverse("member:deal", kwargs={"session_id": session.pk, "number": 1})

    response = member.post(deal_url, {"place_1": players["Alice"].pk})

    assert response.status_code == 400
    assert "leaves the deal unfinished" in response.text


def test_a_viewer_link_reads_history_but_cannot_correct(client, table, actor):
    session, players = table
    play_deals(session, players, 1, actor)
    link = share_link_create(session_id=session.pk, role="viewer", actor=actor)

    page = client.get(f"/s/{link.token}/deals/1/")
    response = client.post(f"/s/{link.token}/deals/1/", {"place_1": players["Dev"].pk})

    assert page.status_code == 200
    assert page.context["form"] is None
    assert response.status_code == 403


def test_history_shows_fifty_deals_a_page(member, table, actor):
    session, players = table
    play_deals(session, players, 60, actor)  # deals 1-60 filed, 61 open
    url = reverse("member:deals", kwargs={"session_id": session.pk})

    first = member.get(url)
    second = member.get(url, {"page": 2})

    assert [card.deal.number for card in first.context["cards"]] == list(range(61, 11, -1))
    assert [card.deal.number for card in second.context["cards"]] == list(range(11, 0, -1))
    assert "?page=2" in first.text
    assert "?page=1" in second.text


@pytest.mark.parametrize("page", ["0", "3", "abc", "1.5", "1e3", "\u0661"])
def test_history_page_that_is_not_there_is_404(member, table, actor, page):
    session, players = table
    # Two pages there and the third not; the others are never a page number ("\u0661" is
    # an Arabic-Indic 1, which int() would take for page 1).
    if page == "3":
        play_deals(session, players, 60, actor)

    response = member.get(
        reverse("member:deals", kwargs={"session_id": session.pk}), {"page": page}
    )

    assert response.status_code == 404
