"""The referee: plays one match between agents and records everything."""

from arena.referee.match import MatchResult, SeatPlan, play_match

__all__ = ["MatchResult", "SeatPlan", "play_match"]
