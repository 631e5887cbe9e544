"""The REST API (SPEC 9): input serializer -> one service -> output serializer."""
