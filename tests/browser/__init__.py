"""Browser tests of the web app."""
