"""Ace Chasing's review now lives beside its game: :mod:`chasetheace.acechasing.review` (this old
path keeps working)."""

from ..acechasing.review import MISTAKE, AceDecision, AceReview, judge_exchange, review_ace_chasing

__all__ = ["AceDecision", "AceReview", "judge_exchange", "review_ace_chasing", "MISTAKE"]
