"""Names are kept normalised (NFKC, no invisible or control characters, one space at a
time), so names that look alike are alike: a name of nothing but invisible characters is
refused, and two players of a circle cannot share a name that only looks different."""

import pytest

from tracker.errors import Conflict, Invalid
from tracker.models import Player
from tracker.services import circle_create, player_create, player_rename
from tracker.services.circles import clean_name
from tracker.services.players import MOST_PLAYERS_IN_CIRCLE, resolve_players

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize(
    "typed, kept",
    [
        ("Dupe", "Dupe"),
        ("Dupe\u200b", "Dupe"),  # zero-width space
        ("\ufeffDupe", "Dupe"),  # byte order mark
        ("\uff24upe", "Dupe"),  # fullwidth D
        ("Du\u00adpe", "Dupe"),  # soft hyphen
        ("Dupe\u202e", "Dupe"),  # right-to-left override
        ("\u2067Dupe\u2069", "Dupe"),  # right-to-left isolate
        ("  Anh\u00a0\u00a0Ba\u3000 ", "Anh Ba"),  # no-break and ideographic spaces
        ("Trần", "Trần"),  # composed and decomposed the same
        ("Tra\u0302\u0300n", "Tr\u1ea7n"),  # decomposed: a, circumflex, grave
    ],
)
def test_a_name_is_kept_normalised(typed, kept):
    assert clean_name(typed, what="player") == kept


@pytest.mark.parametrize("typed", ["\u200b", "\ufeff", "\u200d\u202e", "\u00ad \u2066", "\x00"])
def test_a_name_of_invisible_characters_only_is_refused(typed):
    with pytest.raises(Invalid) as refused:
        clean_name(typed, what="player")

    assert refused.value.message == "The player needs a name."


@pytest.mark.parametrize("lookalike", ["Dupe\u200b", "\uff24upe", "Du\u00adpe", "DUPE", "dupe "])
def test_a_lookalike_of_a_player_is_the_same_player(circle, lookalike):
    player_create(circle=circle, name="Dupe")

    with pytest.raises(Conflict) as refused:
        player_create(circle=circle, name=lookalike)

    assert refused.value.message == "Dupe is already a player in Friday table."
    assert Player.objects.filter(circle=circle).count() == 1


def test_a_rename_to_a_lookalike_is_refused(circle):
    player_create(circle=circle, name="Dupe")
    other = player_create(circle=circle, name="Other")

    with pytest.raises(Conflict):
        player_rename(player=other, name="Ｄupe")


def test_a_lookalike_stored_before_names_were_cleaned_is_found(circle):
    """A name kept as typed before this rule (the data migration cleans them; this holds
    for any left) still counts as the name it looks like."""
    Player.objects.create(circle=circle, name="Dupe\u200b")

    with pytest.raises(Conflict):
        player_create(circle=circle, name="Dupe")
    assert resolve_players(circle, ["dupe", "Ben"])[0].name == "Dupe\u200b"


def test_seating_a_lookalike_name_seats_the_player(circle):
    dupe = player_create(circle=circle, name="Dupe")

    assert resolve_players(circle, ["Ｄupe\u200b", "Ben"])[0] == dupe


def test_a_circle_holds_at_most_500_players(django_user_model):
    owner = django_user_model.objects.create_user(username="busy", password="x")
    crowded = circle_create(owner=owner, name="Crowded")
    Player.objects.bulk_create(
        Player(circle=crowded, name=f"P{number}") for number in range(MOST_PLAYERS_IN_CIRCLE)
    )

    with pytest.raises(Conflict) as refused:
        player_create(circle=crowded, name="One more")
    with pytest.raises(Conflict):
        resolve_players(crowded, ["P1", "One more"])

    assert refused.value.code == "circle_full"
    assert Player.objects.filter(circle=crowded).count() == MOST_PLAYERS_IN_CIRCLE
    assert [player.name for player in resolve_players(crowded, ["P1", "P2"])] == ["P1", "P2"]
