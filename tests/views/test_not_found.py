"""What a page that is not there says: "ask the table for a new link" only where a share
link's page is gone and its own sentence has not said so already. A member's page that
is not found (another circle's, a mistyped number) was told about revoked links too, and
a revoked link's page said it twice (session 26's review)."""

import pytest

from tracker.services import share_link_create, share_link_revoke

pytestmark = pytest.mark.django_db

ASK_THE_TABLE = "Ask the table for a new one."


def test_a_member_s_page_that_is_not_there_says_so_and_nothing_of_links(member, table):
    session, _players = table

    for path in ("/sessions/99999/", f"/sessions/{session.pk}/deals/99/"):
        response = member.get(path)

        assert response.status_code == 404, path
        assert ASK_THE_TABLE not in response.text, path


def test_a_revoked_link_says_it_once(client, table, actor):
    session, _players = table
    link = share_link_create(session_id=session.pk, role="viewer", actor=actor)
    share_link_revoke(link_id=link.pk, actor=actor)

    response = client.get(f"/s/{link.token}/standings/")

    assert response.status_code == 404
    assert response.text.count("revoked") == 1, response.text


def test_a_link_s_page_that_is_not_there_asks_the_table(client, table, actor):
    session, _players = table
    link = share_link_create(session_id=session.pk, role="viewer", actor=actor)

    response = client.get(f"/s/{link.token}/deals/99/")

    assert response.status_code == 404
    assert ASK_THE_TABLE in response.text


@pytest.mark.parametrize(
    "path, said",
    [("/nowhere/", "There is nothing at this address."), ("/s/x/y/z/", ASK_THE_TABLE)],
)
def test_an_address_that_matches_nothing(client, path, said):
    response = client.get(path)

    assert response.status_code == 404
    assert said in response.text
