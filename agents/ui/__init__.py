"""`athena ui`: the review page (rules, sources, conflicts, focused graphs, decisions)."""

from agents.ui.app import create_app

__all__ = ["create_app"]
