"""`/healthz`: is this app server up, and can it reach its database?

For load balancers and uptime checks: no login, no session, one `SELECT 1`. The answer
never says more than "unavailable" about the database (the full error goes to the log),
since anyone can ask.
"""

import logging

from django.db import DatabaseError, connection
from django.http import HttpRequest, JsonResponse
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_safe

logger = logging.getLogger("squarescores.health")

RETRY_AFTER_SECONDS = 5


@never_cache
@require_safe
def healthz(request: HttpRequest) -> JsonResponse:
    try:
        with connection.cursor() as cursor:
            cursor.execute("SELECT 1")
            cursor.fetchone()
    except DatabaseError as error:
        logger.warning("Health check: the database is unavailable: %s", error)
        response = JsonResponse({"status": "error", "database": "unavailable"}, status=503)
        response["Retry-After"] = str(RETRY_AFTER_SECONDS)
        return response
    return JsonResponse({"status": "ok", "database": "ok"})
