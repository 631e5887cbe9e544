"""Fixtures for the page tests: a signed-in member and a table of four."""

import pytest


@pytest.fixture
def member(client, user):
    """The test client, signed in as the circle's owner."""
    client.force_login(user)
    return client


@pytest.fixture
def table(make_session):
    """Alice, Ben, Cara and Dev at the Friday table: podium, loser pays 1.00 USD."""
    return make_session()


@pytest.fixture
def stranger(client, django_user_model):
    """The test client, signed in as someone outside the circle."""
    outsider = django_user_model.objects.create_user(username="outsider", password="not-a-member")
    client.force_login(outsider)
    return client
