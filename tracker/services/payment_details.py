"""Payment details: how a player of a circle is paid (a VietQR bank account, a payment
link), set by a member of the circle."""

from __future__ import annotations

import re

from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext_noop

from scoring.paylinks import PayLinkError, checked_link
from scoring.vietqr import ACCOUNT, BANKS_BY_BIN
from tracker.access import Actor
from tracker.errors import Invalid
from tracker.models import PaymentDetails, Player
from tracker.services.locks import sessions_of_player_changed

NO_SUCH_BANK = gettext_noop("Pick the bank from the list.")
BAD_ACCOUNT = gettext_noop("An account number is 1 to 19 letters or digits.")
BANK_AND_ACCOUNT = gettext_noop("A bank account needs both the bank and the account number.")
BAD_LINK = gettext_noop(
    "A payment link starts with https:// and has no spaces, at most 200 characters."
)
LONG_NAME = gettext_noop("The name on the account has at most 50 characters.")


@transaction.atomic
def payment_details_set(
    *,
    player: Player,
    bank_bin: str = "",
    account_number: str = "",
    account_name: str = "",
    link: str = "",
    actor: Actor,
) -> PaymentDetails:
    """Set how `player` is paid; all blank clears them. An account number may be typed
    with spaces, dots or dashes ("0011 0019 32418"): they are taken out."""
    bank_bin = bank_bin.strip()
    account_number = re.sub(r"[\s.-]", "", account_number)
    account_name = " ".join(account_name.split())
    if bank_bin and bank_bin not in BANKS_BY_BIN:
        raise Invalid(NO_SUCH_BANK, code="invalid_bank")
    if account_number and not ACCOUNT.fullmatch(account_number):
        raise Invalid(BAD_ACCOUNT, code="invalid_account")
    if bool(bank_bin) != bool(account_number):
        raise Invalid(BANK_AND_ACCOUNT, code="invalid_account")
    if len(account_name) > 50:
        raise Invalid(LONG_NAME, code="invalid_account")
    if link.strip():
        try:
            link = checked_link(link)
        except PayLinkError:
            raise Invalid(BAD_LINK, code="invalid_link") from None
    details, _ = PaymentDetails.objects.select_for_update().get_or_create(player=player)
    details.bank_bin, details.account_number = bank_bin, account_number
    details.account_name, details.link = account_name, link.strip()
    details.updated_by, details.updated_at = actor.user, timezone.now()
    details.save()
    sessions_of_player_changed(player.pk)  # settle up shows how they are paid
    return details
