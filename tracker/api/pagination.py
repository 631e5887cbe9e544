"""Pages of a list: `?page=` and `?page_size=`, strict.

DRF's `PageNumberPagination` quietly falls back to the default size for a `page_size` it
cannot read (`0`, `abc`) and caps a large one; here a value out of range is a 400 that
says what is allowed, so a client never gets a page it did not ask for. A page past the
end is a 404.
"""

from __future__ import annotations

from typing import Any

from django.core.paginator import Paginator
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy
from rest_framework.exceptions import ValidationError
from rest_framework.pagination import PageNumberPagination
from rest_framework.request import Request


class StrictPagination(PageNumberPagination):
    page_size = 50
    page_size_query_param = "page_size"
    max_page_size = 200
    invalid_page_message = gettext_lazy("There is no page {page_number} in this list.")

    def get_page_size(self, request: Request) -> int:
        return self._whole_number(
            request, self.page_size_query_param, self.page_size, most=self.max_page_size
        )

    def get_page_number(self, request: Request, paginator: Paginator) -> int:
        return self._whole_number(request, self.page_query_param, 1)

    def _whole_number(
        self, request: Request, name: str, default: int, *, most: int | None = None
    ) -> int:
        text = request.query_params.get(name)
        if text is None:
            return default
        number = int(text) if text.isascii() and text.isdigit() else 0
        if number < 1 or (most is not None and number > most):
            if most is None:
                message = _("Send a whole number, 1 or more.")
            else:
                message = _("Send a whole number, from 1 to %(most)s.") % {"most": most}
            raise ValidationError({name: [message]})
        return number

    def get_schema_operation_parameters(self, view: Any) -> list[dict[str, Any]]:
        return [
            {
                "name": self.page_query_param,
                "required": False,
                "in": "query",
                "description": "The page, from 1 (past the last page: 404).",
                "schema": {"type": "integer", "minimum": 1},
            },
            {
                "name": self.page_size_query_param,
                "required": False,
                "in": "query",
                "description": (
                    f"Items a page holds, 1 to {self.max_page_size}; "
                    f"{self.page_size} when left out."
                ),
                "schema": {"type": "integer", "minimum": 1, "maximum": self.max_page_size},
            },
        ]
