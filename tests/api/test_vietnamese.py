"""The API's own sentences (credentials, permissions, field checks, pages, idempotency
keys) are said in Vietnamese to a request with `Accept-Language: vi`, and in English,
word for word as before, to everyone else (no header, `en`, a language we do not have)."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from django.test import Client
from rest_framework.response import Response

from tests.api.conftest import client_with, db_state

pytestmark = pytest.mark.django_db

ENGLISH = [None, "en", "fr-FR"]  # no header, English, and a language we have not


def in_each_language(send: Callable[..., Response]) -> tuple[list[dict], dict]:
    """The JSON answers to one request sent in ENGLISH, then with Accept-Language: vi."""
    english = []
    for language in ENGLISH:
        headers = {} if language is None else {"HTTP_ACCEPT_LANGUAGE": language}
        english.append(send(**headers))
    vietnamese = send(HTTP_ACCEPT_LANGUAGE="vi")
    assert len({response.status_code for response in [*english, vietnamese]}) == 1
    return [response.json() for response in english], vietnamese.json()


def said(english: list[dict], vietnamese: dict, expected_english: dict, expected: dict) -> None:
    """The sentences are said in each language; the `code` is the same in all of them."""
    codes = {answer.pop("code") for answer in [*english, vietnamese]}
    assert len(codes) == 1
    assert english == [expected_english] * len(ENGLISH)
    assert vietnamese == expected


def test_no_credentials():
    send = client_with().get
    english, vietnamese = in_each_language(lambda **h: send("/api/sessions/", **h))

    said(
        english,
        vietnamese,
        {
            "detail": "Sign in first: send Authorization: Token <token> (from POST "
            "/api/auth/token/), or Authorization: Share <token> with a share link."
        },
        {
            "detail": "Hãy đăng nhập trước: gửi Authorization: Token <token> (lấy từ POST "
            "/api/auth/token/), hoặc Authorization: Share <token> với một liên kết chia sẻ."
        },
    )


def test_a_share_link_that_is_not_valid():
    send = client_with("Share not-a-link").get
    english, vietnamese = in_each_language(lambda **h: send("/api/sessions/", **h))

    said(
        english,
        vietnamese,
        {"detail": "This share link is not valid."},
        {"detail": "Liên kết chia sẻ này không hợp lệ."},
    )


def test_a_viewer_link_writing(start, api):
    table = start()
    token = api.post(f"/api/sessions/{table.id}/share-links/", {"role": "viewer"}).json()["token"]
    viewer = client_with(f"Share {token}")
    url = f"/api/deals/{table.deal}/taps/"
    before = db_state()

    english, vietnamese = in_each_language(
        lambda **h: viewer.post(url, {"player": table.p["Alice"]}, **h)
    )

    said(
        english,
        vietnamese,
        {"detail": "A viewer link can only look; a scorer link or an account can record."},
        {"detail": "Liên kết xem chỉ để xem; cần liên kết ghi điểm hoặc tài khoản để ghi."},
    )
    assert db_state() == before


def test_a_scorer_link_beyond_its_session(start, api):
    table = start()
    token = api.post(f"/api/sessions/{table.id}/share-links/", {"role": "scorer"}).json()["token"]
    scorer = client_with(f"Share {token}")

    english, vietnamese = in_each_language(lambda **h: scorer.get("/api/circles/", **h))

    said(
        english,
        vietnamese,
        {"detail": "A share link reaches only its own session's scoring; sign in for this."},
        {
            "detail": "Liên kết chia sẻ chỉ dùng để ghi điểm trong buổi chơi của nó; "
            "hãy đăng nhập để làm việc này."
        },
    )


def test_an_amount_of_zero(start, api):
    table = start()
    url = f"/api/sessions/{table.id}/settlement/paid/"
    body = {"from": table.p["Dev"], "to": table.p["Alice"], "amount": "0"}

    english, vietnamese = in_each_language(lambda **h: api.post(url, body, **h))

    said(
        english,
        vietnamese,
        {
            "detail": "amount: The amount must be more than 0.",
            "fields": {"amount": ["The amount must be more than 0."]},
        },
        {
            "detail": "amount: Số tiền phải lớn hơn 0.",
            "fields": {"amount": ["Số tiền phải lớn hơn 0."]},
        },
    )


def test_a_stake_sent_as_a_float(api, circle):
    body = {"circle": circle.pk, "name": "Friday", "players": ["A", "B"], "stake": 1.5}
    before = db_state()

    english, vietnamese = in_each_language(lambda **h: api.post("/api/sessions/", body, **h))

    english_stake = (
        'Send the stake as a decimal string such as "1.50", not a JSON number with a '
        "fraction: that is a float, and floats cannot hold money exactly."
    )
    stake = (
        'Hãy gửi mức cược dạng chuỗi thập phân như "1.50", không phải số JSON có phần lẻ: '
        "đó là số thực, mà số thực không giữ tiền chính xác được."
    )
    said(
        english,
        vietnamese,
        {"detail": f"stake: {english_stake}", "fields": {"stake": [english_stake]}},
        {"detail": f"stake: {stake}", "fields": {"stake": [stake]}},
    )
    assert db_state() == before


def test_a_page_size_out_of_range(api):
    english, vietnamese = in_each_language(lambda **h: api.get("/api/sessions/?page_size=0", **h))

    said(
        english,
        vietnamese,
        {
            "detail": "page_size: Send a whole number, from 1 to 200.",
            "fields": {"page_size": ["Send a whole number, from 1 to 200."]},
        },
        {
            "detail": "page_size: Hãy gửi một số nguyên, từ 1 đến 200.",
            "fields": {"page_size": ["Hãy gửi một số nguyên, từ 1 đến 200."]},
        },
    )


def test_a_page_past_the_end(start, api):
    start()
    english, vietnamese = in_each_language(lambda **h: api.get("/api/sessions/?page=5", **h))

    said(
        english,
        vietnamese,
        {"detail": "There is no page 5 in this list."},
        {"detail": "Danh sách này không có trang 5."},
    )


def test_an_idempotency_key_reused_for_another_request(start, api):
    table = start()
    url = f"/api/deals/{table.deal}/taps/"
    first = api.post(url, {"player": table.p["Alice"]}, HTTP_IDEMPOTENCY_KEY="tap-1")
    assert first.status_code == 201
    before = db_state()

    english, vietnamese = in_each_language(
        lambda **h: api.post(url, {"player": table.p["Ben"]}, HTTP_IDEMPOTENCY_KEY="tap-1", **h)
    )

    said(
        english,
        vietnamese,
        {
            "detail": "This Idempotency-Key was already used for a different request; "
            "send a new key with a new request."
        },
        {
            "detail": "Idempotency-Key này đã được dùng cho một yêu cầu khác; "
            "hãy gửi yêu cầu mới với một key mới."
        },
    )
    assert db_state() == before


def test_a_body_that_is_not_json(api):
    english, vietnamese = in_each_language(
        lambda **h: api.post("/api/sessions/", "{", content_type="application/json", **h)
    )

    said(
        english,
        vietnamese,
        {"detail": "The request body is not valid JSON."},
        {"detail": "Nội dung yêu cầu không phải JSON hợp lệ."},
    )


def test_an_address_under_the_api_that_matches_nothing():
    client = Client()
    english, vietnamese = in_each_language(lambda **h: client.get("/api/sessions/abc/", **h))

    said(
        english,
        vietnamese,
        {"detail": "There is nothing at this address; check the id in the URL."},
        {"detail": "Không có gì ở địa chỉ này; hãy kiểm tra id trong URL."},
    )
