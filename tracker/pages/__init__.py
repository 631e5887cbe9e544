"""What the pages are made of, apart from the views themselves (tracker.views)."""
