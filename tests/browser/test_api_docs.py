"""Swagger UI (/api/docs/) is served from the app (drf-spectacular-sidecar) and works
within the site's Content-Security-Policy: it draws the operations, and the browser
reports no CSP violation."""

import pytest
from playwright.sync_api import expect

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_swagger_ui_works_within_the_policy(phone, screenshot):
    problems = []
    phone.on("console", lambda message: problems.append(message.text))
    phone.on("requestfailed", lambda request: problems.append(request.url))

    phone.goto("/api/docs/")

    expect(phone.locator(".swagger-ui .info .title")).to_contain_text("SquareScores API")
    expect(phone.locator(".opblock").first).to_be_visible()
    screenshot(phone, "80-api-docs")
    assert [text for text in problems if "Content Security Policy" in text or "http" in text] == []
