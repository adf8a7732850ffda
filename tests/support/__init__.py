"""Test helpers: scripted upstream, threaded server, PostgreSQL, tiny models, repository paths."""
