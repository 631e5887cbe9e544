"""Sign-in lockout (django-axes): after LOGIN_FAILURE_LIMIT wrong passwords for one
username (from any address) or from one address (for any usernames), signing in is
refused for LOGIN_LOCKOUT_MINUTES — the login page, the admin's and the API's token
request alike — with a sentence, the wait and 429."""

from datetime import timedelta

import pytest
from axes.models import AccessAttempt
from django.contrib.auth.models import User
from django.test import Client
from django.utils import timezone

from tests.api.conftest import client_with
from tracker.models import WriteCount

pytestmark = pytest.mark.django_db

LOCKED = (
    "Too many wrong passwords for this account or from this address: signing in is locked "
    "for 15 minutes. Wait, then try again."
)
RIGHT = "table-of-four"


def login(client, username="host", password="wrong-one", address="10.0.0.1", path=None):
    return client.post(
        path or "/accounts/login/",
        {"username": username, "password": password},
        REMOTE_ADDR=address,
    )


def token(username="host", password="wrong-one", address="10.0.0.1"):
    return client_with().post(
        "/api/auth/token/", {"username": username, "password": password}, REMOTE_ADDR=address
    )


def test_five_wrong_passwords_lock_the_login_page(client, user):
    statuses = [login(client).status_code for _ in range(4)]

    refused = login(client)  # the fifth: locked from here on
    right = login(client, password=RIGHT)

    assert statuses == [200] * 4  # the form again, saying the password is wrong
    assert refused.status_code == 429
    assert right.status_code == 429  # even the right password now
    assert LOCKED in right.text
    assert right["Retry-After"] == "900"
    assert "_auth_user_id" not in client.session


def test_one_username_is_locked_from_every_address(client, user):
    for number in range(5):
        login(client, address=f"10.0.0.{number}")

    refused = login(client, password=RIGHT, address="10.9.9.9")
    other = login(client, username="nobody", address="10.9.9.9")

    assert refused.status_code == 429
    assert other.status_code == 200  # another username from that address is still asked


def test_one_address_is_locked_for_every_username(client, user):
    for number in range(5):
        login(client, username=f"guess{number}")

    refused = login(client, password=RIGHT)

    assert refused.status_code == 429
    assert login(client, password=RIGHT, address="10.0.0.2").status_code == 302


def test_the_admin_login_is_locked_too(client, user):
    for _ in range(5):
        login(client, path="/admin/login/")

    refused = login(client, password=RIGHT, path="/admin/login/")

    assert refused.status_code == 429
    assert LOCKED in refused.text


def test_the_api_token_request_is_locked_with_the_pages(client, user):
    for _ in range(3):
        token()
    for _ in range(2):
        login(client)  # the same count, through either door

    refused = token(password=RIGHT)

    assert refused.status_code == 429
    assert refused.json() == {"code": "locked_out", "detail": LOCKED}
    assert refused["Retry-After"] == "900"


def test_the_lock_lifts_after_the_wait(client, user):
    for _ in range(5):
        login(client)
    AccessAttempt.objects.update(attempt_time=timezone.now() - timedelta(minutes=16))

    assert login(client, password=RIGHT).status_code == 302


def test_a_right_password_before_the_limit_starts_the_count_again(client, user):
    for _ in range(4):
        login(client)
    assert login(client, password=RIGHT).status_code == 302
    client.logout()

    for _ in range(4):
        login(client)

    assert login(client, password=RIGHT).status_code == 302


def test_signing_in_to_one_s_own_account_does_not_clear_guesses_at_another(
    client, user, django_user_model
):
    """Axes cleared every failure from the address at a sign-in: four guesses at the
    host's password, then the attacker's own sign-in, again and again, were never locked
    out. A sign-in now clears its own username's failures from its address only."""
    django_user_model.objects.create_user(username="mallory", password="mallory-pass-1")
    attacker = Client()
    for _round in range(2):
        for _ in range(2):
            login(client, address="10.6.6.6")
        assert login(attacker, "mallory", "mallory-pass-1", address="10.6.6.6").status_code == 302
        attacker.logout()
        assert token("mallory", "mallory-pass-1", address="10.6.6.6").status_code == 200

    refused = login(client, address="10.6.6.6")  # the host's fifth wrong password

    assert refused.status_code == 429
    assert login(client, password=RIGHT, address="10.7.7.7").status_code == 429  # the username


def test_the_lockout_page_is_in_vietnamese(client, user):
    client.cookies["django_language"] = "vi"
    for _ in range(5):
        login(client)

    refused = login(client, password=RIGHT)

    assert refused.status_code == 429
    assert "15 phút" in refused.text


def sign_up(client, number, address="10.0.0.1"):
    password = "tien-len-table-42"
    return client.post(
        "/accounts/signup/",
        {"username": f"cara{number}", "password1": password, "password2": password},
        REMOTE_ADDR=address,
    )


def test_accounts_made_from_one_address_are_limited(client, settings):
    settings.REST_FRAMEWORK = {
        **settings.REST_FRAMEWORK,
        "DEFAULT_THROTTLE_RATES": {"signup": "5/hour"},
    }
    made = []
    for number in range(5):
        made.append(sign_up(client, number).status_code)
        client.logout()

    refused = sign_up(client, 5)

    assert made == [302] * 5
    assert refused.status_code == 429
    # The count starts again when the hour (a fixed window) ends.
    wait = int(refused["Retry-After"])
    assert 1 <= wait <= 3600
    minutes = max(1, -(-wait // 60))
    assert (
        f"Too many accounts were made from this address; try again in {minutes} minutes."
        in refused.text
    )
    assert sign_up(client, 6, address="10.0.0.2").status_code == 302


def test_sign_up_tries_from_one_address_are_limited_whatever_they_answer(client, user, settings):
    """Sign-up says whether a username is taken (it must, to let a person pick another),
    and the account limit counted only accounts made: one address could ask about every
    username it liked (a tester's note, carried since session 23). Every form sent now
    counts against `signup_tries` too; past it nothing is checked, so nothing is said
    about any username, and no account is made."""
    settings.REST_FRAMEWORK = {
        **settings.REST_FRAMEWORK,
        "DEFAULT_THROTTLE_RATES": {"signup": "5/hour", "signup_tries": "8/hour"},
    }
    password = "tien-len-table-42"
    taken = {"username": user.username, "password1": password, "password2": password}
    asked = [client.post("/accounts/signup/", taken, REMOTE_ADDR="10.0.0.1") for _ in range(8)]
    assert [answer.status_code for answer in asked] == [400] * 8
    assert "A user with that username already exists." in asked[-1].text

    probed = client.post("/accounts/signup/", taken, REMOTE_ADDR="10.0.0.1")
    free = sign_up(client, 9)

    assert (probed.status_code, free.status_code) == (429, 429)
    assert "already exists" not in probed.text
    assert f'value="{user.username}"' in probed.text  # as typed, to send again later
    wait = int(probed["Retry-After"])
    assert 1 <= wait <= 3600
    minutes = max(1, -(-wait // 60))
    assert (
        f"Too many sign-up tries from this address; try again in {minutes} minutes." in probed.text
    )
    assert not User.objects.filter(username="cara9").exists()
    # Another address is counted apart; a look at the form is no try.
    assert client.get("/accounts/signup/", REMOTE_ADDR="10.0.0.1").status_code == 200
    assert sign_up(client, 10, address="10.0.0.2").status_code == 302


def test_sign_up_tries_are_said_in_vietnamese(client, settings):
    settings.REST_FRAMEWORK = {
        **settings.REST_FRAMEWORK,
        "DEFAULT_THROTTLE_RATES": {"signup": "5/hour", "signup_tries": "1/hour"},
    }
    client.cookies["django_language"] = "vi"
    assert client.post("/accounts/signup/", {"username": "x"}).status_code == 400

    refused = client.post("/accounts/signup/", {"username": "x"})

    assert refused.status_code == 429
    assert "Đã thử đăng ký quá nhiều lần từ địa chỉ này" in refused.text


@pytest.mark.parametrize("rate", ["signup", "signup_tries"])
def test_an_address_longer_than_any_ip_is_counted_not_a_500(client, settings, rate):
    """Behind a proxy the address is what it put last in X-Forwarded-For; a proxy passing
    on anything it was sent could make it longer than the counter's 60-character scope,
    or no IP address for django-axes to store (PostgreSQL refused either: a 500). What is
    not an IP address counts as the proxy's own address."""
    settings.REST_FRAMEWORK = {
        **settings.REST_FRAMEWORK,
        "NUM_PROXIES": 1,
        "DEFAULT_THROTTLE_RATES": {"signup": "5/hour", "signup_tries": "5/hour"},
    }
    password = "tien-len-table-42"
    answer = client.post(
        "/accounts/signup/",
        {"username": f"long{rate}", "password1": password, "password2": password},
        HTTP_X_FORWARDED_FOR="203.0.113.9, " + "f" * 100,
    )
    assert answer.status_code == 302
    assert WriteCount.objects.filter(scope__endswith=":ip:127.0.0.1").count() == 2
