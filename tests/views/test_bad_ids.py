"""Bad input on the pages: every form field that names an object (a deal, a player, a
share link, a token) takes ASCII digits within an id column and nothing else — "abc",
"1.5", "1e3", "NaN", "٣" (an Arabic-Indic three), NUL bytes, numbers past the column —
and answers 400 with nothing changed, never 500. A share token with a NUL byte or any
character a token never has is 404."""

import pytest
from django.urls import reverse

from tests.api.conftest import db_state
from tests.views.helpers import open_deal, play_deals
from tracker.services import share_link_create

pytestmark = pytest.mark.django_db

NOT_IDS = ["abc", "1.5", "1e3", "NaN", "\u0663", "1\x00", "-1", "0", "99999999999999999999"]


@pytest.fixture
def world(table, actor):
    session, players = table
    play_deals(session, players, 1, actor)
    link = share_link_create(session_id=session.pk, role="viewer", actor=actor)
    return session, players, open_deal(session), link


def forms(world):
    """(page, {field: value} of a valid form, the field that names an object)."""
    session, players, deal, link = world
    alice, ben = players["Alice"].pk, players["Ben"].pk
    return [
        ("tap_player", {"deal": deal.pk, "player": alice}, "deal"),
        ("tap_player", {"deal": deal.pk, "player": alice}, "player"),
        ("undo", {"deal": deal.pk}, "deal"),
        ("event", {"deal": deal.pk, "type": "hand", "player": alice, "cards": 3}, "player"),
        (
            "event",
            {"deal": deal.pk, "type": "two_beaten", "by": alice, "owner": ben, "with": "bomb"},
            "by",
        ),
        ("players", {"deal": deal.pk, "drop": alice}, "drop"),
        ("players", {"deal": deal.pk, "up": alice}, "up"),
        ("paid", {"payer": alice, "payee": ben, "amount": "1.00"}, "payer"),
        ("share_revoke", {"link": link.pk}, "link"),
    ]


CASES = [(index, value) for index in range(9) for value in NOT_IDS]


@pytest.mark.parametrize("index, value", CASES)
def test_a_form_naming_an_object_by_no_id_is_400(member, world, index, value):
    page, data, field = forms(world)[index]
    url = reverse(f"member:{page}", kwargs={"session_id": world[0].pk})
    before = db_state()

    response = member.post(url, {**data, field: value, "key": f"k-{index}"})

    assert response.status_code == 400, (page, field, value)
    assert db_state() == before


@pytest.mark.parametrize("value", NOT_IDS)
def test_a_player_rename_form_with_no_id_in_the_path_is_404(member, circle, value):
    response = member.post(f"/circles/{circle.pk}/players/{value}/", {"name": "X"})

    assert response.status_code == 404


@pytest.mark.parametrize(
    "path",
    [
        "/s/%00/",
        "/s/%00/standings/",
        "/s/abc%00def/deals/",
        "/s/%E2%80%AE/",
        "/s/a b/",
        "/s/" + "a" * 65 + "/",
    ],
)
def test_a_share_token_that_is_no_token_is_404(client, path):
    response = client.get(path)

    assert response.status_code == 404
