"""Home, sign up, sign in and out, and the language and theme switches."""

import pytest
from django.contrib.auth import get_user_model
from django.urls import reverse

from tracker.models import Circle

pytestmark = pytest.mark.django_db


def test_home_anonymous_offers_sign_up_and_sign_in(client):
    response = client.get("/")

    assert response.status_code == 200
    assert reverse("signup") in response.text
    assert reverse("login") in response.text


def test_home_member_lists_circles_and_open_sessions(member, table, circle):
    session, _players = table

    response = member.get("/")

    assert response.status_code == 200
    assert circle.name in response.text
    assert reverse("member:tap", kwargs={"session_id": session.pk}) in response.text


def test_sign_up_makes_an_account_with_a_circle_and_opens_a_new_session(client):
    response = client.post(
        reverse("signup"),
        {"username": "cara", "password1": "tien-len-table-42", "password2": "tien-len-table-42"},
    )

    user = get_user_model().objects.get(username="cara")
    circle = Circle.objects.get(owner=user)
    assert list(circle.members.all()) == [user]
    assert response.status_code == 302
    assert response.url == reverse("session_new", kwargs={"circle_id": circle.pk})
    assert client.get(response.url).status_code == 200  # signed in


def test_sign_up_with_mismatched_passwords_is_refused_on_the_form(client):
    response = client.post(
        reverse("signup"),
        {"username": "cara", "password1": "tien-len-table-42", "password2": "something-else-9"},
    )

    assert response.status_code == 400
    assert 'class="field__error"' in response.text
    assert not get_user_model().objects.filter(username="cara").exists()


def test_sign_in_page_renders(client):
    response = client.get(reverse("login"))

    assert response.status_code == 200
    assert 'name="password"' in response.text


def test_sign_out_is_a_post(member):
    assert member.get(reverse("logout")).status_code == 405

    response = member.post(reverse("logout"))

    assert response.status_code == 302
    assert member.get(reverse("circle_new")).status_code == 302  # to the login page


def test_language_switch_sticks(client):
    response = client.post(reverse("set_language"), {"language": "vi", "next": "/"})

    assert response.status_code == 302
    page = client.get("/")
    assert '<html lang="vi"' in page.text
    assert "Ghi điểm Tiến lên ngay tại bàn" in page.text
    assert client.get(reverse("login")).text.count("Đăng nhập") >= 2


def test_theme_switch_remembers_light(client):
    response = client.post(reverse("set_theme"), {"theme": "light", "next": "/"})

    assert response.status_code == 302
    assert response.cookies["theme"].value == "light"
    assert 'class="theme-light"' in client.get("/").text


def test_the_theme_follows_the_phone_until_picked_and_auto_forgets_the_pick(client):
    assert 'class="theme-auto"' in client.get("/").text
    client.post(reverse("set_theme"), {"theme": "dark", "next": "/"})
    assert 'class="theme-dark"' in client.get("/").text

    response = client.post(reverse("set_theme"), {"theme": "auto", "next": "/"})

    assert response.cookies["theme"].value == ""  # deleted
    assert 'class="theme-auto"' in client.get("/").text


def test_theme_switch_ignores_an_unsafe_next(client):
    response = client.post(reverse("set_theme"), {"theme": "dark", "next": "https://evil.test/"})

    assert response.url == "/"
