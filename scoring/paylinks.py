"""Payment links (PayPal.me, Venmo, Revolut, MoMo...): a link a player pastes, checked,
and the same link with the amount to pay where the service takes one in its address.

Services that take the amount in the link:
- PayPal.me: `https://paypal.me/<name>/<amount><CURRENCY>` (`25.50EUR`), any currency;
- Venmo: `https://venmo.com/<name>?txn=pay&amount=<amount>&note=<note>`, US dollars only.

Any other link (Revolut, MoMo, a bank's own page...) opens as it is, and the page shows
the amount beside it. Plain Python.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from decimal import Decimal
from urllib.parse import quote, urlencode, urlsplit

LONGEST_LINK = 200
CENT = Decimal("0.01")
HANDLE = re.compile(r"[A-Za-z0-9_.-]{1,64}")
PAYPAL_HOSTS = frozenset({"paypal.me", "www.paypal.me"})
VENMO_HOSTS = frozenset({"venmo.com", "www.venmo.com", "account.venmo.com"})


class PayLinkError(ValueError):
    """Not a link we open for a payment; the message says why."""


def checked_link(text: str) -> str:
    """A payment link as pasted, trimmed, if it is one we would open: `https://`, a host,
    no spaces or control characters, at most 200 characters."""
    link = text.strip()
    if len(link) > LONGEST_LINK:
        raise PayLinkError(f"A payment link has at most {LONGEST_LINK} characters.")
    if re.search(r"[\s\x00-\x1f\x7f]", link):
        raise PayLinkError("A payment link has no spaces.")
    parts = urlsplit(link)
    if parts.scheme.lower() != "https" or not parts.hostname or parts.username:
        raise PayLinkError("A payment link starts with https:// and names a site.")
    return link


@dataclass(frozen=True)
class PayLink:
    url: str
    with_amount: bool  # whether the amount is in the link (else: shown beside it)


def _handle(path: str, prefixes: tuple[str, ...] = ()) -> str | None:
    parts = [part for part in path.split("/") if part]
    if parts and parts[0].lower() in prefixes:
        parts = parts[1:]
    return parts[0] if len(parts) == 1 and HANDLE.fullmatch(parts[0]) else None


def link_to_pay(link: str, amount: Decimal, currency: str, note: str = "") -> PayLink:
    """`link` with the amount in it where its service takes one (see the module
    docstring); otherwise `link` as it is."""
    if amount <= 0 or amount != amount.quantize(CENT):
        return PayLink(link, False)  # nobody can send a tenth of a cent
    money = f"{amount.quantize(CENT):f}"
    parts = urlsplit(link)
    host = (parts.hostname or "").lower()
    if host in PAYPAL_HOSTS:
        handle = _handle(parts.path)
        if handle is not None:
            return PayLink(f"https://paypal.me/{quote(handle)}/{money}{currency.upper()}", True)
    if host in VENMO_HOSTS and currency.upper() == "USD":
        handle = _handle(parts.path, ("u",))
        if handle is not None:
            query = urlencode({"txn": "pay", "amount": money, "note": note})
            return PayLink(f"https://venmo.com/{quote(handle)}?{query}", True)
    return PayLink(link, False)
