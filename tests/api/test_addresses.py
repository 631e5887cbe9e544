"""Addresses under /api/ that no route takes: JSON with a code, DEBUG on or off (`make run`
has it on), and a write sent without its last slash told so, never a 500."""

import pytest

from tracker.models import Tap

pytestmark = pytest.mark.django_db

NOTHING = {
    "code": "not_found",
    "detail": "There is nothing at this address; check the id in the URL.",
}


@pytest.fixture(params=[False, True], ids=["debug off", "debug on"])
def debug(request, settings):
    settings.DEBUG = request.param
    return request.param


@pytest.mark.parametrize("method", ["get", "post", "put", "patch", "delete"])
@pytest.mark.parametrize("path", ["/api/nowhere/", "/api/v1/sessions/x/", "/api/", "/api/deals"])
def test_an_address_nothing_takes_is_a_json_404(debug, api, method, path):
    response = getattr(api, method)(path)

    assert response.status_code == 404
    assert response["Content-Type"] == "application/json"
    assert response.json() == NOTHING


@pytest.mark.parametrize("method", ["post", "put", "patch", "delete"])
def test_a_write_without_its_last_slash_is_told_to_add_it(debug, start, api, method):
    table = start()
    path = f"/api/deals/{table.deal}/taps"

    response = getattr(api, method)(path, {"player": table.p["Alice"]})

    assert (response.status_code, response.json()) == (
        404,
        {"code": "slash_missing", "detail": f"This address ends with a slash: {path}/"},
    )
    assert not Tap.objects.exists()  # nothing recorded


def test_the_sentence_is_vietnamese_for_a_vietnamese_phone(debug, start, api):
    table = start()

    response = api.post(f"/api/v1/deals/{table.deal}/taps", {}, HTTP_ACCEPT_LANGUAGE="vi")

    assert response.json()["detail"] == (
        f"Địa chỉ này phải có dấu gạch chéo ở cuối: /api/v1/deals/{table.deal}/taps/"
    )


def test_a_read_without_its_last_slash_is_sent_to_it(debug, start, api):
    table = start()

    response = api.get(f"/api/sessions/{table.id}/standings?x=1")

    assert response.status_code == 301
    assert response["Location"] == f"/api/sessions/{table.id}/standings/?x=1"
    assert api.get(response["Location"]).status_code == 200


def test_the_schema_does_not_list_the_last_route(api):
    paths = api.get("/api/schema/?format=json").json()["paths"]

    assert not [path for path in paths if "rest" in path]
