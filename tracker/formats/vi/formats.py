"""Vietnamese: Django leaves thousands ungrouped; a Vietnamese reader writes 380.000 đ.
Everything not set here is Django's (`django/conf/locale/vi/formats.py`)."""

NUMBER_GROUPING = 3
