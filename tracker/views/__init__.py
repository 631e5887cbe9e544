"""The pages: server-rendered, htmx for the live parts, one module per screen.

A view reads what was sent, makes one call (a selector to read, a service through the one
write gate to write) and renders. Who may see and do what is `tracker.access`, the way a
request came in `tracker.views.doors`; what a screen shows, in words, is put together in
`tracker.views.screens`; templates only render (`templates/<screen>/`).
"""
