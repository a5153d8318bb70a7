"""The host: tables, router, message catalogues, replay, the async service."""
