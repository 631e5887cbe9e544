"""How the pages write money and places.

Money is shown with its currency, to the cent (or to the tenth of a cent when a half stake
makes one), with a real minus sign for debts; currencies without minor units (VND, JPY...)
drop ".00" from whole amounts.
"""

from __future__ import annotations

import secrets
import unicodedata
from decimal import Decimal

from django import template
from django.utils import formats
from django.utils.html import format_html
from django.utils.safestring import SafeString
from django.utils.translation import gettext_lazy as _

register = template.Library()

CENT = Decimal("0.01")
# ISO 4217 currencies with no minor unit: nobody writes 10,000.00 VND.
WHOLE_CURRENCIES = frozenset({"VND", "JPY", "KRW", "CLP", "ISK", "PYG", "UGX", "XAF", "XOF"})
MINUS = "\u2212"

PLACES = {
    1: _("1st"),
    2: _("2nd"),
    3: _("3rd"),
    4: _("4th"),
    5: _("5th"),
    6: _("6th"),
    7: _("7th"),
    8: _("8th"),
}


def place_label(place: int | None) -> str:
    """1st, 2nd, 3rd... in the active language ("" for no place)."""
    if not place:
        return ""
    return str(PLACES.get(place, place))


def format_amount(amount: Decimal, *, signed: bool = False, currency: str = "") -> str:
    """`1.50`, `+8.00`, `−1.50`, `10,000` in English (`1,50`, `10.000` in Vietnamese):
    exact, never rounded away; separators of the active language."""
    if currency.upper() in WHOLE_CURRENCIES and amount == amount.to_integral_value():
        decimals = 0
    else:
        decimals = 2 if amount == amount.quantize(CENT) else 3
    text = formats.number_format(abs(amount), decimals, use_l10n=True, force_grouping=True)
    if amount < 0:
        text = MINUS + text
    elif signed and amount > 0:
        text = "+" + text
    return text


def format_money(amount: Decimal, currency: str, *, signed: bool = False) -> str:
    """Plain text: `1.00 USD`."""
    return f"{format_amount(amount, signed=signed, currency=currency)} {currency}"


def _money_html(amount: Decimal, currency: str, signed: bool) -> SafeString:
    sign = "" if amount == 0 else ("amount--gain" if amount > 0 else "amount--debt")
    return format_html(
        '<span class="amount {}">{}<span class="amount__currency"> {}</span></span>',
        sign if signed else "",
        format_amount(amount, signed=signed, currency=currency),
        currency,
    )


@register.filter
def money(amount: Decimal, currency: str) -> SafeString:
    """`{{ line.amount|money:session.currency }}`: an amount with its currency."""
    return _money_html(Decimal(amount), str(currency), signed=False)


@register.filter
def net(amount: Decimal, currency: str) -> SafeString:
    """`{{ row.net|net:session.currency }}`: a balance, signed and coloured."""
    return _money_html(Decimal(amount), str(currency), signed=True)


@register.filter
def minus(value: str) -> str:
    """`{{ skill|floatformat:1|minus }}`: a negative number with a real minus sign, as the
    amounts have ("-2.7" beside "−125" read as a dash)."""
    return str(value).replace("-", "\u2212")


@register.filter
def place(value: int | None) -> str:
    return place_label(value)


@register.filter
def nfc(value: str) -> str:
    """Composed Unicode: Django spells "Tiếng Việt" with combining accents."""
    return unicodedata.normalize("NFC", str(value))


@register.simple_tag
def write_key() -> SafeString:
    """`{% write_key %}` in a form that writes: a fresh idempotency key for this render, so
    the form sent twice (a double tap, a retry after a lost answer) is applied once."""
    return format_html('<input type="hidden" name="key" value="{}">', secrets.token_hex(16))
