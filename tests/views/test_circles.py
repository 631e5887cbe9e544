"""A circle's page: its players (add, rename) and sessions."""

import pytest
from django.urls import reverse

pytestmark = pytest.mark.django_db


def circle_url(circle):
    return reverse("circle", kwargs={"circle_id": circle.pk})


def test_circle_page_lists_players_and_sessions(member, table, circle):
    session, _players = table

    response = member.get(circle_url(circle))

    assert response.status_code == 200
    for name in ("Alice", "Ben", "Cara", "Dev", session.name):
        assert name in response.text


def test_add_a_player(member, circle):
    response = member.post(
        reverse("player_add", kwargs={"circle_id": circle.pk}), {"name": "  Eve  "}
    )

    assert response.status_code == 302
    assert [player.name for player in circle.players.all()] == ["Eve"]


def test_adding_a_player_twice_shows_why(member, table, circle):
    response = member.post(
        reverse("player_add", kwargs={"circle_id": circle.pk}), {"name": "alice"}
    )

    assert response.status_code == 409
    assert "Alice is already a player in Friday table." in response.text
    assert circle.players.count() == 4


def test_rename_a_player(member, table, circle):
    _session, players = table

    response = member.post(
        reverse("player_rename", kwargs={"circle_id": circle.pk, "player_id": players["Dev"].pk}),
        {"name": "Devi"},
    )

    assert response.status_code == 302
    players["Dev"].refresh_from_db()
    assert players["Dev"].name == "Devi"


def test_new_circle(member, user):
    response = member.post(reverse("circle_new"), {"name": "Sunday lunch"})

    assert response.status_code == 302
    assert sorted(circle.name for circle in user.circles.all()) == ["Sunday lunch"]


@pytest.mark.parametrize("language", ["en", "vi"])
def test_the_new_circle_page_asks_for_the_name_alone(member, user, language):
    """The page's idempotency key is a hidden input, once: a visible, untranslated "Key"
    box above the name took the name a tired player typed first (the review of session
    25), and the form then had no name."""
    import re

    page = member.get(reverse("circle_new"), HTTP_ACCEPT_LANGUAGE=language).text

    keys = re.findall(r"<input[^>]*name=\"key\"[^>]*>", page)
    assert len(keys) == 1 and 'type="hidden"' in keys[0], keys
    labels = re.findall(r"<label[^>]*>(.*?)</label>", page, re.S)
    assert [label.strip() for label in labels] == [
        {"en": "Circle name", "vi": "Tên nhóm"}[language]
    ]


def test_a_non_member_gets_404(stranger, circle):
    assert stranger.get(circle_url(circle)).status_code == 404
    assert stranger.get(reverse("session_new", kwargs={"circle_id": circle.pk})).status_code == 404
    response = stranger.post(reverse("player_add", kwargs={"circle_id": circle.pk}), {"name": "X"})
    assert response.status_code == 404


def test_anonymous_is_sent_to_sign_in(client, circle):
    response = client.get(circle_url(circle))

    assert response.status_code == 302
    assert response.url.startswith(reverse("login"))


def test_a_name_typed_with_a_right_to_left_override_is_kept_without_it(member, circle):
    member.post(f"/circles/{circle.pk}/players/", {"name": "\u202eevE", "key": "k1"})

    assert list(circle.players.values_list("name", flat=True)) == ["evE"]


def test_names_are_isolated_so_a_direction_mark_cannot_turn_a_line(member, circle):
    from pathlib import Path

    from django.conf import settings

    from tracker.models import Circle

    Circle.objects.filter(pk=circle.pk).update(name="\u202eFriday")  # stored before cleaning

    response = member.get(f"/circles/{circle.pk}/")

    assert "<h1><bdi>\u202eFriday</bdi></h1>" in response.text
    css = (Path(settings.BASE_DIR) / "static/css/app.css").read_text()
    assert ".list__title,\n" in css and "unicode-bidi: isolate;" in css
