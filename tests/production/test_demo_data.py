"""`make run` loads the demo with `manage.py demo_data --if-empty`: it must run on a fresh
database, say how to sign in, and leave the demo circle as docs say (two ended sessions)."""

import io

import pytest
from django.core.management import call_command

from tracker.models import Circle, Session

pytestmark = pytest.mark.django_db


def run(*args):
    out = io.StringIO()
    call_command("demo_data", *args, stdout=out)
    return out.getvalue()


def test_the_demo_loads_on_a_fresh_database_and_says_how_to_sign_in(client):
    said = run("--if-empty")

    assert "Demo data loaded." in said
    assert "demo / tienlen-demo" in said
    assert list(Session.objects.order_by("name").values_list("name", flat=True)) == [
        "Friday table",
        "Sunday Pro-Play",
    ]
    assert Session.objects.filter(ended_at__isnull=True).count() == 0
    signed_in = client.post(
        "/accounts/login/", {"username": "demo", "password": "tienlen-demo"}
    )  # the sign-in page itself, lockout counting and all
    assert signed_in.status_code == 302
    assert client.get("/").context["user"].username == "demo"


def test_if_empty_leaves_a_database_with_a_circle_alone():
    run("--if-empty")

    again = run("--if-empty")

    assert "Demo data loaded." not in again
    assert Circle.objects.count() == 1
