"""The REST API (SPEC 9), one module per noun: input serializer -> one service or
selector -> output serializer. Reach is decided in `tracker.access`, writes pass the one
gate in `tracker.gate`, exactly as for the pages."""
