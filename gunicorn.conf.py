"""Gunicorn settings for `make serve` (gunicorn reads this file from the working directory).

Everything can be overridden from the environment:

    BIND=0.0.0.0:8080       where to listen (default 127.0.0.1:8000; with PORT set, as
                            on most PaaS, 0.0.0.0:$PORT)
    WEB_CONCURRENCY=4       number of worker processes (default 2 × cores + 1)
    GUNICORN_CMD_ARGS=...   any other gunicorn option, e.g. "--timeout 60"
"""

import multiprocessing
import os

# ASGI, on uvicorn's workers: a worker holds thousands of idle live streams
# (tracker/views/live.py) as coroutines, and runs the ordinary views in threads.
wsgi_app = "tracker.asgi:application"
worker_class = "tracker.serving.Worker"

_port = os.environ.get("PORT", "").strip()
bind = [os.environ.get("BIND", "").strip() or (f"0.0.0.0:{_port}" if _port else "127.0.0.1:8000")]

# Twice the cores plus one keeps the CPU busy while some workers wait on PostgreSQL. Each
# serves several requests at once (a thread each), so its database pool holds several
# connections (DB_POOL_MAX_SIZE).
workers = int(os.environ.get("WEB_CONCURRENCY", "").strip() or multiprocessing.cpu_count() * 2 + 1)

# The app is loaded in each worker after the fork, never in the master: a psycopg pool
# (DB_POOL=true) or an open connection must not be shared between processes.
preload_app = False

# A request stuck longer than this (a lost database, say) gets its worker restarted. It is
# above the database pool's and connect timeouts, so those answer a 503 first.
timeout = 30
graceful_timeout = 30

# The access log is the app's own: one JSON line per request on stdout, from
# tracker.middleware.RequestLogMiddleware. Gunicorn's line would repeat it and print share
# link tokens, which travel in the path (/s/<token>/). Errors go to stderr.
accesslog = None
errorlog = "-"
loglevel = os.environ.get("LOG_LEVEL", "").strip().lower() or "info"

# No `gunicornc` control socket: its default path is one per user, so a second instance on
# the machine (a benchmark, a test) would take over the first one's.
control_socket_disable = True
