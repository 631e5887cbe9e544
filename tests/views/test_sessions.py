"""Starting a session: defaults that get a table going in one tap."""

from decimal import Decimal

import pytest
from django.urls import reverse

from tracker.models import Session

pytestmark = pytest.mark.django_db


def new_url(circle):
    return reverse("session_new", kwargs={"circle_id": circle.pk})


def form_data(**changes):
    data = {
        "name": "Friday",
        "format": "podium",
        "stake_rule": "loser_pays",
        "stake": "1.00",
        "currency": "USD",
        "hand_size": "13",
    }
    data.update(changes)
    return data


def test_a_new_circle_asks_for_four_new_players(member, circle):
    response = member.get(new_url(circle))

    assert response.status_code == 200
    assert [f'name="new_{slot}"' in response.text for slot in range(1, 6)] == [True] * 4 + [False]


def test_new_players_are_seated_in_the_order_typed(member, circle):
    data = form_data(new_1="Dev", new_2="Alice", new_3="Ben", new_4="")

    response = member.post(new_url(circle), data)

    session = Session.objects.get()
    assert response.status_code == 302
    assert response.url == reverse("member:tap", kwargs={"session_id": session.pk})
    seats = [seat.player.name for seat in session.seats.select_related("player")]
    assert seats == ["Dev", "Alice", "Ben"]


def test_defaults_repeat_the_last_sessions_table_and_rules(member, make_session, circle):
    make_session(players=("Cara", "Alice", "Dev"), stake="0.50", currency="VND")

    response = member.get(new_url(circle))

    form = response.context["form"]
    seats = {field.label: field.value() for field in form.seat_fields()}
    assert seats == {"Alice": 2, "Cara": 1, "Dev": 3}
    assert (form["stake"].value(), form["currency"].value()) == ("0.50", "VND")
    assert form["stake_rule"].value() == "loser_pays"


def test_seats_pick_the_order_and_who_sits_out(member, make_session, circle):
    _session, players = make_session()
    data = form_data(
        **{
            f"seat_{players['Alice'].pk}": "2",
            f"seat_{players['Ben'].pk}": "",
            f"seat_{players['Cara'].pk}": "1",
            f"seat_{players['Dev'].pk}": "3",
        }
    )

    member.post(new_url(circle), data)

    session = Session.objects.order_by("-pk").first()
    assert [seat.player.name for seat in session.seats.select_related("player")] == [
        "Cara",
        "Alice",
        "Dev",
    ]


def test_a_refused_rule_set_is_explained_on_the_form(member, circle):
    data = form_data(stake_rule="per_card", new_1="A", new_2="B")

    response = member.post(new_url(circle), data)

    assert response.status_code == 400
    assert "go with winner takes all" in response.text
    assert not Session.objects.exists()


def test_instant_wins_with_two_packs_are_explained_on_the_form(member, make_session, circle):
    _session, players = make_session()
    seats = {f"seat_{player.pk}": str(seat) for seat, player in enumerate(players.values(), 1)}
    data = form_data(instant_wins="on", new_1="Eve", **seats)

    response = member.post(new_url(circle), data)

    assert response.status_code == 400
    assert "two packs have no instant wins" in response.text
    assert "one pack only (2 to 4 players)" in response.text  # what the option says
    assert Session.objects.count() == 1


def test_five_consecutive_pairs_is_an_option_of_a_new_session(member, circle):
    page = member.get(new_url(circle))
    assert 'name="five_consecutive_pairs"' in page.text
    data = form_data(instant_wins="on", five_consecutive_pairs="on", new_1="A", new_2="B")

    member.post(new_url(circle), data)

    assert Session.objects.get().options.five_consecutive_pairs is True


def test_one_player_is_not_a_table(member, circle):
    response = member.post(new_url(circle), form_data(new_1="Alice"))

    assert response.status_code == 400
    assert "Seat at least two players." in response.text


def test_a_decimal_comma_stake_is_read(member, circle):
    member.post(new_url(circle), form_data(stake="0,50", new_1="A", new_2="B"))

    assert str(Session.objects.get().stake) == "0.50"


@pytest.mark.parametrize(
    "language, typed, stake",
    [
        ("vi", "10.000", "10000"),  # read as 10: a night in dong scored 1,000 times too small
        ("vi", "1.000.000", "1000000"),
        ("vi", "2.500,5", "2500.5"),
        ("vi", "0,5", "0.5"),
        ("vi", "1.5", "1.5"),
        ("en", "10,000", "10000"),
        ("en", "1,500.50", "1500.5"),
        ("en", "0,50", "0.5"),
    ],
)
def test_a_stake_is_read_with_thousands_grouped_the_reader_s_way(
    member, circle, language, typed, stake
):
    member.cookies["django_language"] = language

    response = member.post(
        new_url(circle), form_data(stake=typed, currency="VND", new_1="A", new_2="B")
    )

    assert response.status_code == 302, response.content[:300]
    assert Session.objects.get().stake.normalize() == Decimal(stake).normalize()


@pytest.mark.parametrize("language, shown", [("vi", "10.000"), ("en", "10,000")])
def test_the_last_stake_is_offered_the_reader_s_way_and_reads_back(
    member, make_session, circle, language, shown
):
    make_session(stake="10000", currency="VND")
    member.cookies["django_language"] = language

    form = member.get(new_url(circle)).context["form"]
    member.post(new_url(circle), form_data(stake=form["stake"].value(), new_1="A", new_2="B"))

    assert form["stake"].value() == shown
    assert Session.objects.latest("pk").stake == Decimal("10000")


@pytest.mark.parametrize(
    "language, typed",
    [
        ("en", "10.000"),  # ten, or ten thousand the Vietnamese way? Not guessed
        ("en", "0,500"),  # a zero before a group: a half, not 500
        ("vi", "0.500"),
        ("en", "00,500"),
        ("vi", "1,250"),  # three decimals: more than a stake has
    ],
)
def test_a_stake_that_could_be_read_two_ways_is_refused_with_a_sentence(
    member, circle, language, typed
):
    member.cookies["django_language"] = language

    response = member.post(
        new_url(circle), form_data(stake=typed, currency="VND", new_1="A", new_2="B")
    )

    assert response.status_code == 400
    sentence = {
        "en": "Type the stake with at most 2 decimal places, such as 0.50 or 10,000.",
        "vi": "Nhập mức cược với tối đa 2 chữ số thập phân, ví dụ 0,50 hoặc 10.000.",
    }[language]
    assert sentence in response.text
    assert not Session.objects.exists()


def test_a_stake_that_is_no_number_is_refused_with_the_service_s_sentence(member, circle):
    response = member.post(new_url(circle), form_data(stake="10.000,5", new_1="A", new_2="B"))

    assert response.status_code == 400
    assert "The stake must be a number such as 1.00." in response.text
    assert not Session.objects.exists()


@pytest.mark.parametrize("language, name", [("en", "Fri 4 Dec"), ("vi", "Thứ 6, 4/12")])
def test_a_new_session_is_named_for_today_as_the_language_says_it(
    member, circle, language, name, monkeypatch
):
    """ "Thứ 6 4 Tháng 12" read as a row of numbers, and the tap screen cut it to
    "Thứ 6 4 T…" (session 26's review)."""
    import datetime

    from django.utils import timezone

    monkeypatch.setattr(timezone, "localdate", lambda: datetime.date(2026, 12, 4))
    member.cookies["django_language"] = language

    form = member.get(new_url(circle)).context["form"]

    assert form["name"].value() == name
