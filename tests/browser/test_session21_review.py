"""Session 21's review of 94b41cc: the standings' two lines a player at a full table."""

import pytest
from playwright.sync_api import expect

from tests.browser.conftest import fits_width, sign_in
from tests.browser.test_one_door import NAMES
from tests.browser.test_standings_fit import NAME_LINES
from tracker.models import Deal
from tracker.services import deal_tap

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

EIGHT = [
    *NAMES,
    "Hoàng Thị Thanh Hương Ngọc Ánh Bích Thủy",
    "Vũ Đình Trọng Nghĩa Minh Triết Quang Vin",
    "Đặng Thị Xuân Mai Thu Hà Diệu Linh Khánh",
    "Bùi Văn Thành Đạt Quốc Bảo Hữu Phước Sơn",
]


def test_eight_long_names_and_a_nine_digit_loss_fit_at_320(new_phone, make_session, actor):
    """Guard (passes): tests/browser/test_standings_fit.py checks four players and
    −15.000.000. A full table is eight, and the one always left holding cards pays seven
    a head: after 15 deals at 1.000.000 đ that is −105.000.000, three more digits beside
    the points. The page still does not scroll sideways and each 40-character name keeps
    to two lines."""
    session, players = make_session(players=EIGHT, stake="1000000", currency="VND")
    for _ in range(15):
        deal = session.deals.get(status="open")
        for name in EIGHT:
            deal_tap(deal_id=deal.pk, player_id=players[name].pk, actor=actor)
            if Deal.objects.get(pk=deal.pk).status != Deal.Status.OPEN:
                break
    page = new_phone(locale="vi-VN")
    page.set_viewport_size({"width": 320, "height": 568})
    sign_in(page, "host", "table-of-four")

    page.goto(f"/sessions/{session.pk}/standings/")

    expect(page.locator("#standings")).to_contain_text("−105.000.000")
    assert fits_width(page)
    assert page.evaluate(NAME_LINES) == [2] * 8
