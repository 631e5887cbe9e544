"""The screens the one-door change touched, at 320×568 in Vietnamese with 40-character
names: the tap screen and its sheets, a filed deal's page with the same sheets, the
players page, End match, share, settle up, and a refusal's page. None scrolls sideways;
each is saved as a screenshot to look at."""

import pytest
from playwright.sync_api import expect

import scoring
from tests.browser.conftest import fits_width, sign_in
from tracker.services import deal_tap, share_link_create

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

NAMES = [
    "Nguyễn Thị Minh Khai Phương Thảo Hồng Nh",
    "Trần Văn Bảo Long Hoàng Gia Khánh Duy Ân",
    "Lê Thị Ngọc Diễm Kiều Trang Mỹ Linh Châu",
    "Phạm Quốc Huy Đăng Khoa Thiên Ân Bảo Tín",
]
SMALL = {"width": 320, "height": 568}


@pytest.fixture
def long_table(make_session, actor):
    """Four 40-character Vietnamese names, every option the rules allow, one deal filed."""
    session, players = make_session(
        players=NAMES,
        options=scoring.Options(
            penalties=True, guaransheed=True, got_to_get_in=True, instant_wins=True
        ),
    )
    deal = session.deals.get()
    for name in NAMES[:3]:
        deal_tap(deal_id=deal.pk, player_id=players[name].pk, actor=actor)
    return session, players


@pytest.fixture
def small_phone(new_phone):
    page = new_phone(locale="vi-VN")
    page.set_viewport_size(SMALL)
    return page


def test_the_changed_screens_fit_a_small_phone_in_vietnamese(
    small_phone, long_table, actor, screenshot
):
    session, _players = long_table
    sign_in(small_phone, "host", "table-of-four")
    base = f"/sessions/{session.pk}"

    small_phone.goto(f"{base}/")
    expect(small_phone.locator("html")).to_have_attribute("lang", "vi")
    assert fits_width(small_phone)
    screenshot(small_phone, "one-door-01-tap")
    # Opened directly: whether the Undo bar covers the sheets' buttons on a small screen
    # is the tap screen issue's to settle (issue 11), not this one's.
    small_phone.locator("details.action").first.evaluate("sheet => { sheet.open = true; }")
    expect(small_phone.locator("details[open] .sheet")).to_be_visible()
    screenshot(small_phone, "one-door-02-tap-sheet")

    for path, name in [
        ("deals/1/", "03-deal"),
        ("players/", "04-players"),
        ("end/", "05-end"),
        ("settle/", "06-settle"),
        ("share/", "07-share"),
    ]:
        response = small_phone.goto(f"{base}/{path}")
        assert response.status == 200, path
        assert fits_width(small_phone), path
        screenshot(small_phone, f"one-door-{name}", full_page=True)

    small_phone.goto(f"{base}/deals/1/")
    small_phone.locator(".actions--page details.action").first.evaluate(
        "sheet => { sheet.open = true; }"
    )
    expect(small_phone.locator("details[open] .sheet")).to_be_visible()
    screenshot(small_phone, "one-door-08-deal-sheet")

    viewer = share_link_create(session_id=session.pk, role="viewer", actor=actor)
    refused = small_phone.goto(f"/s/{viewer.token}/players/")
    assert refused.status == 403
    expect(small_phone.locator(".alert")).to_contain_text("Liên kết xem chỉ để xem")
    assert fits_width(small_phone)
    screenshot(small_phone, "one-door-09-refused")
