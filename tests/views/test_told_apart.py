"""Undo names a long name by its first word and the last words that tell it apart
("Nguyễn … Lan Vy"): two lines held "Undo Nguyễn Thị Minh Khai Phương Hoà…", which named
neither the player nor the place (session 25's review)."""

import pytest

from tests.views.helpers import htmx
from tracker.views.screens.words import told_apart

pytestmark = pytest.mark.django_db

ALIKE = [
    "Nguyễn Thị Minh Khai Phương Hoàng Lan Vy",
    "Nguyễn Thị Minh Khai Phương Hoàng Lan Hà",
    "Nguyễn Thị Minh Khai Phương Hồng Nhung",
    "Nguyễn Thị Minh Khai Phương Hồng Nga",
]


def test_a_long_name_is_its_first_word_and_the_last_words_no_other_ends_with():
    said = told_apart(dict(enumerate(ALIKE, start=1)))

    assert said == {
        1: "Nguyễn … Lan Vy",
        2: "Nguyễn … Lan Hà",
        3: "Nguyễn … Hồng Nhung",
        4: "Nguyễn … Hồng Nga",
    }


def test_more_last_words_when_two_last_words_are_shared():
    said = told_apart({1: "Trần Văn Bảo Long Hoàng Gia Anh", 2: "Lê Thị Ngọc Diễm Gia Anh"})

    assert said == {1: "Trần … Hoàng Gia Anh", 2: "Lê … Diễm Gia Anh"}


@pytest.mark.parametrize(
    "names",
    [
        {1: "Alice", 2: "Ben"},  # short: whole
        {1: "Nguyễn Thị Minh Khai", 2: "Ben"},  # twenty letters: whole
        {1: "Nguyễnthịminhkhaiphươnghoànglanvy", 2: "Ben"},  # one word: whole
        {1: "Nguyễn Thị Minh Khai Phương Lan", 2: "Nguyễn Thị Minh Khai Phương Lan"},
    ],
)
def test_a_name_that_cannot_be_told_apart_so_stays_whole(names):
    assert told_apart(names) == names


def test_the_tap_screen_s_undo_and_the_offline_plan_say_the_short_name(member, make_session):
    session, players = make_session(players=ALIKE)
    deal = session.deals.get()

    response = member.post(
        f"/sessions/{session.pk}/tap/",
        {"deal": deal.pk, "player": players[ALIKE[0]].pk, "out_before": "", "key": "k1"},
        **htmx(),
    )

    screen = response.context["screen"]
    assert screen.undo == "Undo Nguyễn … Lan Vy 1st"
    assert [player[2] for player in screen.offline["players"]] == [
        "Nguyễn … Lan Vy",
        "Nguyễn … Lan Hà",
        "Nguyễn … Hồng Nhung",
        "Nguyễn … Hồng Nga",
    ]


def test_undo_names_the_two_players_of_a_chop_by_their_given_names(member, make_session, actor):
    """ "Undo Nguyễn … Lan Hà beat Nguyễn…": whose 2 it was fell off Undo's two lines."""
    import scoring
    from tracker.services import deal_event_record, deal_tap

    session, players = make_session(players=ALIKE, options=scoring.Options(penalties=True))
    chop = scoring.TwoBeaten(
        by=players[ALIKE[1]].pk,
        owner=players[ALIKE[0]].pk,
        beaten_with=scoring.Beater.CUTUP,
        black=1,
    )
    deal_event_record(deal_id=session.deals.get().pk, event=chop, actor=actor)

    response = member.get(f"/sessions/{session.pk}/")

    assert response.context["screen"].undo == "Undo Hà beat Vy's 2"
    # A tap names one player: as before.
    deal_tap(deal_id=session.deals.get().pk, player_id=players[ALIKE[2]].pk, actor=actor)
    response = member.get(f"/sessions/{session.pk}/")
    assert response.context["screen"].undo == "Undo Nguyễn … Hồng Nhung 1st"


def test_given_names_are_the_last_words_that_tell_them_apart():
    from tracker.views.screens.words import by_given_name

    said = by_given_name(
        {1: ALIKE[0], 2: ALIKE[1], 3: "Trần Văn Vy", 4: "Bartholomew Fitzgerald", 5: "Cara"}
    )
    assert said == {1: "Lan Vy", 2: "Hà", 3: "Trần Văn Vy", 4: "Fitzgerald", 5: "Cara"}


def test_the_correction_s_places_say_the_short_names(member, make_session, actor):
    """A select shows the start of its choice: at 320 px the deal page's places read
    "Nguyễn Thị Minh K" three times (session 25's review)."""
    import re

    from tracker.services import deal_tap

    session, players = make_session(players=ALIKE)
    deal = session.deals.get()
    for name in ALIKE[:3]:
        deal_tap(deal_id=deal.pk, player_id=players[name].pk, actor=actor)

    page = member.get(f"/sessions/{session.pk}/deals/1/").content.decode()

    select = re.search(r'<select name="place_1".*?</select>', page, re.S).group(0)
    assert re.findall(r"<option[^>]*>([^<]*)</option>", select)[1:] == [
        "Nguyễn … Lan Vy",
        "Nguyễn … Lan Hà",
        "Nguyễn … Hồng Nhung",
        "Nguyễn … Hồng Nga",
    ]


def test_tails_alike_but_for_case_are_alike():
    """A circle holds names apart only beyond case: "… Lan Vy" and "… lan vy" told two
    players apart by two capitals (the review of session 25)."""
    said = told_apart({1: "Nguyễn Thị Minh Khai Lan Vy", 2: "Nguyễn Thị Hồng Nhung lan vy"})

    assert said == {1: "Nguyễn … Khai Lan Vy", 2: "Nguyễn … Nhung lan vy"}


def test_the_last_deal_s_summary_says_the_short_names(member, make_session, actor):
    """Three lines held "Deal 1: Nguyễn Thị Minh Khai Phương Hoàng Lan Vy 3 · Nguyễn Thị
    Minh Khai…": who came second, third and who paid was cut (session 26's review)."""
    from tracker.services import deal_tap

    session, players = make_session(players=ALIKE)
    deal = session.deals.get()
    for name in ALIKE[:3]:
        deal_tap(deal_id=deal.pk, player_id=players[name].pk, actor=actor)

    screen = member.get(f"/sessions/{session.pk}/").context["screen"]

    assert screen.last_deal.startswith(
        "Deal 1: Nguyễn … Lan Vy 3 · Nguyễn … Lan Hà 2 · Nguyễn … Hồng Nhung 1 · "
    ), screen.last_deal
