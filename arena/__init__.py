"""Skitgubbe Arena: referee and tournament runner for Skitgubbe bots."""

__version__ = "0.1.0"
