"""dokobot: Doppelkopf for chat channels."""

__version__ = "0.1.0"
