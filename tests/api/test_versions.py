"""The API is versioned: /api/v1/ is its address and the only one the schema lists; the
paths from before versioning (/api/...) keep working on the same views."""

import pytest

pytestmark = pytest.mark.django_db


def test_v1_and_the_old_paths_answer_the_same(api, circle):
    assert (
        api.get("/api/v1/circles/").json()
        == api.get("/api/circles/").json()
        == [{"id": circle.pk, "name": "Friday table"}]
    )


def test_a_write_through_v1(api):
    response = api.post("/api/v1/circles/", {"name": "Sunday"})

    assert response.status_code == 201


def test_the_schema_lists_v1_only(api):
    paths = api.get("/api/schema/", HTTP_ACCEPT="application/json").json()["paths"]

    assert paths and all(path.startswith("/api/v1/") for path in paths)
    assert "/api/v1/sessions/{id}/standings/" in paths


def test_an_unknown_v1_path_is_a_json_404(api):
    response = api.get("/api/v1/nothing/")

    assert response.status_code == 404
    assert response.json()["code"] == "not_found"
