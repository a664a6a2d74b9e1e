"""Spades Arena: a self-hosted arena for two-player Spades bots."""

__version__ = "0.1.0"
