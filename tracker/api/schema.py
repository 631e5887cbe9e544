"""What the OpenAPI schema says beyond the serializers: error answers, throttling,
`Idempotency-Key`.

The views declare each operation with `reads` or `writes`; those add the answers every
read or write can give, so the schema lists every status the API sends (schemathesis
checks it: tests/api/test_schemathesis.py).
"""

from __future__ import annotations

from typing import Any

from drf_spectacular.extensions import OpenApiSerializerFieldExtension
from drf_spectacular.utils import OpenApiParameter, OpenApiResponse, extend_schema

from tracker.api import serializers as io
from tracker.api.base import REPLAYED_HEADER
from tracker.api.fields import NAME_PATTERN, closed_inputs
from tracker.gate import HEADER, LONGEST_KEY

# Text without a null character (DRF refuses one in any CharField).
TEXT_PATTERN = r"^[^\u0000]*$"
# Printable ASCII, space to tilde: what `gate.check_key` accepts.
IDEMPOTENCY_KEY_PATTERN = f"^[ -~]{{1,{LONGEST_KEY}}}$"

IDEMPOTENCY = OpenApiParameter(
    HEADER,
    {
        "type": "string",
        "minLength": 1,
        "maxLength": LONGEST_KEY,
        "pattern": IDEMPOTENCY_KEY_PATTERN,
    },
    OpenApiParameter.HEADER,
    required=False,
    description=(
        f"1 to {LONGEST_KEY} printable ASCII characters; a UUID is ideal (HTTP drops spaces "
        "at either end, so keep them out). Any other key is refused with 400. A retry with "
        "the same key and body is applied once and gets the first answer again; the same key "
        "with another request gets 422; a retry while the first is still running gets 409. "
        "Kept at least 24 hours."
    ),
)

RETRY_AFTER = OpenApiParameter(
    "Retry-After",
    {"type": "integer", "minimum": 0},
    OpenApiParameter.HEADER,
    required=True,
    description="Seconds to wait before trying again.",
    response=[429],
)


def replayed(code: int) -> OpenApiParameter:
    """The header on an answer replayed from an earlier request with the same key."""
    return OpenApiParameter(
        REPLAYED_HEADER,
        {"type": "string", "enum": ["true"]},
        OpenApiParameter.HEADER,
        description="Present on an answer replayed for a retried Idempotency-Key.",
        response=[code],
    )


ERROR = OpenApiResponse(io.ErrorOut, description="A sentence saying what went wrong.")
BAD_QUERY = OpenApiResponse(
    io.ErrorOut, description="A query parameter is not valid; the sentence names it."
)
THROTTLED = OpenApiResponse(
    io.ErrorOut, description="Too many requests: wait the seconds in Retry-After, then retry."
)
READ_ERRORS = {401: ERROR, 403: ERROR, 404: ERROR}
TOO_LARGE = OpenApiResponse(
    io.ErrorOut, description="The body is over the size limit (MAX_REQUEST_BYTES): not read."
)
WRITE_ERRORS = {
    400: ERROR,
    401: ERROR,
    403: ERROR,
    404: ERROR,
    409: ERROR,
    413: TOO_LARGE,
    422: ERROR,
    429: THROTTLED,
}


def reads(response: Any, *, checks_query: bool = False, **kwargs: Any) -> Any:
    """A GET: its answer and the refusals any read can get. `checks_query`: it refuses a
    bad query parameter (a filter, `page`, `page_size`) with 400."""
    errors = {400: BAD_QUERY, **READ_ERRORS} if checks_query else READ_ERRORS
    return extend_schema(responses={200: response, **errors}, **kwargs)


IF_NONE_MATCH = OpenApiParameter(
    "If-None-Match",
    str,
    OpenApiParameter.HEADER,
    description=(
        "The ETag of an earlier answer: 304 Not Modified while the session has not changed "
        "since (docs/api.md, Watching a session)."
    ),
)
NOT_MODIFIED = OpenApiResponse(description="Not modified: the answer you hold is current.")


def watched(response: Any, **kwargs: Any) -> Any:
    """A GET of a session's data a client may watch: tagged with the session's version
    (`ETag`), and 304 Not Modified for a client that already holds it."""
    return extend_schema(
        responses={200: response, 304: NOT_MODIFIED, **READ_ERRORS},
        parameters=[IF_NONE_MATCH],
        **kwargs,
    )


def writes(request: Any, code: int, response: Any, **kwargs: Any) -> Any:
    """A write: idempotent (`Idempotency-Key`), throttled per caller (429), and refused
    with 400/401/403/404/409/422 as docs/api.md describes."""
    return extend_schema(
        request=request,
        responses={code: response, **WRITE_ERRORS},
        parameters=[IDEMPOTENCY, replayed(code), RETRY_AFTER],
        **kwargs,
    )


class TextFieldExtension(OpenApiSerializerFieldExtension):
    """What DRF's CharField refuses, in the schema of a request: a null character always,
    a blank value unless `allow_blank` (after trimming spaces, when it trims). Fields that
    state their own pattern (`serializers.NameField`) keep it."""

    target_class = "rest_framework.fields.CharField"
    match_subclasses = True

    def map_serializer_field(self, auto_schema: Any, direction: Any) -> dict[str, Any]:
        field = self.target
        schema = auto_schema._map_serializer_field(field, direction, bypass_extensions=True)
        if direction != "request" or schema.get("type") != "string" or "pattern" in schema:
            return schema
        if field.allow_blank:
            schema["pattern"] = TEXT_PATTERN
        elif field.trim_whitespace:
            schema["pattern"] = NAME_PATTERN
        else:
            schema["pattern"] = r"^[^\u0000]+$"
        return schema


def closed_objects(result: dict[str, Any], **kwargs: Any) -> dict[str, Any]:
    """Schema post-processing: `additionalProperties: false` on the request objects that
    refuse a key they do not know (`tracker.api.fields.ClosedInput`)."""
    schemas = result.get("components", {}).get("schemas", {})
    for name in closed_inputs():
        if name in schemas:
            schemas[name]["additionalProperties"] = False
    return result


API_VERSION_PREFIX = "/api/v1/"


def versioned_paths_only(endpoints: list[Any], **kwargs: Any) -> list[Any]:
    """Schema pre-processing: only /api/v1/ (the paths before versioning are aliases of
    the same views, and would list every operation twice)."""
    return [endpoint for endpoint in endpoints if endpoint[0].startswith(API_VERSION_PREFIX)]
