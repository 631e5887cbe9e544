"""Share: scorer and viewer links with QR codes, revocable, for members only."""

import re

import pytest
from django.urls import reverse

from tracker.models import ShareLink
from tracker.services import share_link_create

pytestmark = pytest.mark.django_db


def url(session, name="share"):
    return reverse(f"member:{name}", kwargs={"session_id": session.pk})


def test_make_links_with_qr_codes(member, table):
    session, _players = table

    member.post(url(session), {"role": "scorer"})
    member.post(url(session), {"role": "viewer"})
    response = member.get(url(session))

    scorer = ShareLink.objects.get(role="scorer")
    viewer = ShareLink.objects.get(role="viewer")
    assert f"http://testserver/s/{scorer.token}/" in response.text
    assert f"http://testserver/s/{viewer.token}/standings/" in response.text
    assert response.text.count("<svg") == 2
    assert response.context["missing"] == []


def test_revoke_stops_the_link(member, table, client):
    session, _players = table
    member.post(url(session), {"role": "viewer"})
    link = ShareLink.objects.get()

    response = member.post(url(session, "share_revoke"), {"link": link.pk})

    assert response.status_code == 302
    link.refresh_from_db()
    assert link.revoked_at is not None
    assert member.get(f"/s/{link.token}/standings/").status_code == 404


def test_a_link_cannot_manage_links(client, table, actor):
    session, _players = table
    scorer = share_link_create(session_id=session.pk, role="scorer", actor=actor)

    assert client.get(f"/s/{scorer.token}/share/").status_code == 403
    assert client.post(f"/s/{scorer.token}/share/", {"role": "viewer"}).status_code == 403


def test_another_sessions_link_cannot_be_revoked_here(member, make_session, actor):
    first, _players = make_session()
    second, _players = make_session(players=("Eve", "Finn"))
    other = share_link_create(session_id=second.pk, role="viewer", actor=actor)

    response = member.post(url(first, "share_revoke"), {"link": other.pk})

    assert response.status_code == 404
    other.refresh_from_db()
    assert other.revoked_at is None


def test_the_qr_code_is_inline_svg_without_styles(member, table):
    session, _players = table
    member.post(url(session), {"role": "scorer"})

    svg = re.search(r"<svg.*?</svg>", member.get(url(session)).text, re.S).group(0)

    assert "style=" not in svg
    assert "<script" not in svg
