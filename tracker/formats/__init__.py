"""Number and date formats that add to Django's own, per language (FORMAT_MODULE_PATH)."""
