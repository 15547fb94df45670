"""What happened, in the words players use at the table ("Bob: Change!", "Cat shows K♠: blocked").

A :class:`Narrator` turns events (as dicts: a seat's view from ``game.observation(seat)["history"]``,
or the whole event from ``Event.to_dict()`` when replaying a record) into lines of plain text. It
says only what the dicts it is given hold, so a player's narrator cannot leak a hidden card.
No terminal library is needed here: the command line adds colour on top.

>>> import chasetheace as cta
>>> game = cta.Game(cta.Rules(), players=["Ann", "Bob", "Cat"], seed=2)
>>> narrator = Narrator(game.names, game.rules, viewer=0)
>>> for event in game.observation(0)["history"]:
...     for line in narrator.tell(event):
...         print(line)
You deal first (chosen at random).
Hand 1: You deal, Bob is eldest.
You are dealt 3♦.
>>> print(card_text("Th"), card_text(None))
10♥ ?
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, assert_never

from .cards import RANK_NAMES, Card
from .events import (
    Blocked,
    CollectedSeen,
    CutDraw,
    DealerChosen,
    DealerDraw,
    DealerDrewBlocker,
    DealerExchangeSeen,
    DealerSameRank,
    DealtSeen,
    Eliminated,
    FinalTie,
    GameOver,
    HandStarted,
    Keep,
    KingJerk,
    LivesLost,
    Pick,
    SeenEvent,
    ShowBlocker,
    Showdown,
    ShuffleSeen,
    SwapSeen,
    read_view,
)
from .rules import OPTIONS, STRENGTH, Rules

__all__ = ["Narrator", "card_text", "rank_word", "explain_rules", "lives_text",
           "option_rows"]

SUIT_SYMBOLS = {"c": "♣", "d": "♦", "h": "♥", "s": "♠"}


def card_text(card: str | Card | None) -> str:
    """A card as a player writes it: ``'10♥'``, ``'K♠'``; ``'?'`` for a card not seen."""
    if card is None:
        return "?"
    c = Card.parse(card)
    rank = "10" if c.rank == 10 else str(c)[0]
    return rank + SUIT_SYMBOLS[c.suit]


def rank_word(rank: int, *, article: bool = False) -> str:
    """A rank in words, capitalised as players say it: ``'King'``, ``'an Ace'``, ``'a 2'``."""
    word = RANK_NAMES[rank].capitalize() if rank in (1, 11, 12, 13) else str(rank)
    if not article:
        return word
    return ("an " if word[0] in "A8" else "a ") + word


def lives_text(lives: int) -> str:
    """``'1 life'``, ``'3 lives'``."""
    return f"{lives} life" if lives == 1 else f"{lives} lives"


class Narrator:
    """Tells events one by one, keeping track of lives so it can say how many are left.

    ``viewer`` is the seat whose view the events come from (said as "you"), or None for a
    spectator or a replay of a whole record.
    """

    def __init__(self, names: Sequence[str], rules: Rules, viewer: int | None = None) -> None:
        self.names = list(names)
        self.rules = rules
        self.viewer = viewer
        self.lives = [rules.lives] * len(self.names)
        self.dealer: int | None = None
        self.order: list[int] = []
        self._last_payments: list[tuple[int, int]] = []

    # --- words for people ------------------------------------------------------------------

    def who(self, seat: int) -> str:
        """The name of ``seat``, or "You" for the viewer."""
        return "You" if seat == self.viewer else self.names[seat]

    def whom(self, seat: int) -> str:
        """The name of ``seat`` as an object: "you" for the viewer."""
        return "you" if seat == self.viewer else self.names[seat]

    def _verb(self, seat: int, third: str, second: str, *, start: bool = True) -> str:
        name = self.who(seat) if start else self.whom(seat)
        return f"{name} {second if seat == self.viewer else third}"

    def _cards(self, pairs: Sequence[tuple[int, Card]]) -> str:
        return ", ".join(f"{self.who(s)} {card_text(c)}" for s, c in pairs)

    # --- the events ------------------------------------------------------------------------

    def tell(self, event: Mapping[str, Any]) -> list[str]:
        """The lines that tell ``event``, one dict of a seat's history (or of a whole record),
        read as a typed event (:func:`chasetheace.events.read_view`)."""
        return self.tell_event(read_view(event))

    def tell_event(self, ev: SeenEvent) -> list[str]:
        """The lines that tell a typed event (none for events a player would not remark on)."""
        match ev:
            case DealerDraw(draws=draws):
                return [f"Cards drawn for the deal: {self._cards(draws)}."]
            case DealerChosen(dealer=dealer, method=method):
                how = {"random": "chosen at random", "high-card": "the strongest card drawn",
                       "first-jack": "the first jack"}.get(method, method)
                return [f"{self._verb(dealer, 'deals', 'deal')} first ({how})."]
            case HandStarted():
                return self._hand_started(ev)
            case DealtSeen(count=count, cards=cards):
                if len(cards) == count and len(cards) > 1:
                    return [f"Dealt: {self._cards(cards)}."]
                return [f"{self._verb(s, 'is', 'are')} dealt {card_text(c)}." for s, c in cards]
            case KingJerk():
                return self._king_jerk(ev)
            case Keep(seat=seat):
                return [f"{self.who(seat)}: Stand."]
            case SwapSeen():
                return self._swap(ev)
            case Blocked(seat=a, neighbour=b, card=card):
                return [f"{self.who(a)}: Change! {self._verb(b, 'shows', 'show')} "
                        f"{card_text(card)}: blocked."]
            case ShowBlocker(seat=seat, card=card):
                return [f"{self.who(seat)}: {rank_word(card.rank)}! "
                        f"({self._verb(seat, 'shows', 'show')} {card_text(card)}.)"]
            case DealerExchangeSeen():
                return self._dealer_exchange(ev)
            case DealerDrewBlocker():
                return self._dealer_drew_blocker(ev)
            case DealerSameRank():
                return self._dealer_same_rank(ev)
            case Showdown():
                return self._showdown(ev)
            case LivesLost():
                return self._lives_lost(ev)
            case FinalTie():
                return self._final_tie(ev)
            case CutDraw(draws=draws):
                return [f"Cut for the pot: {self._cards(draws)}."]
            case Eliminated(seats=seats):
                return [f"{self._verb(s, 'is', 'are')} out." for s in seats]
            case GameOver():
                return self._game_over(ev)
            case ShuffleSeen() | Pick() | CollectedSeen():
                return []  # nothing a player remarks on
            case _:
                assert_never(ev)

    def _hand_started(self, ev: HandStarted) -> list[str]:
        self.dealer, self.order = ev.dealer, list(ev.order)
        eldest = self.order[0]
        return [f"Hand {ev.hand}: {self._verb(ev.dealer, 'deals', 'deal')}, "
                f"{self._verb(eldest, 'is', 'are', start=False)} eldest."]

    def _king_jerk(self, ev: KingJerk) -> list[str]:
        seat = ev.seat
        if ev.took:
            self.lives[seat] += 1
            return [f"{self._verb(seat, 'shows', 'show')} {card_text(ev.card)} and "
                    f"{'take' if seat == self.viewer else 'takes'} a chip from the kitty (Kings Jerk)."]
        return [f"{self._verb(seat, 'shows', 'show')} {card_text(ev.card)}; the kitty is empty."]

    def _swap(self, ev: SwapSeen) -> list[str]:
        a, b = ev.seat, ev.neighbour
        line = f"{self.who(a)}: Change! "
        if ev.given is not None and self.viewer in (a, b):
            me, other = (a, b) if self.viewer == a else (b, a)
            gave, got = (ev.given, ev.received) if me == a else (ev.received, ev.given)
            line += (f"You give {card_text(gave)} to {self.names[other]} "
                     f"and get {card_text(got)}.")
        elif ev.given is not None:
            line += (f"{self.names[a]} gives {card_text(ev.given)} to {self.names[b]} "
                     f"for {card_text(ev.received)}.")
        else:
            line += f"{self.who(a)} and {self.whom(b)} swap cards."
        lines = [line]
        if ev.announced:
            lines.append(f"{self.who(b)}: \"{rank_word(ev.announced, article=True)}!\"")
        return lines

    def _dealer_exchange(self, ev: DealerExchangeSeen) -> list[str]:
        d = ev.seat
        cut = self.rules.dealer_exchange == "cut"
        how = ("cut" if cut else "take the top card of") if d == self.viewer else (
            "cuts" if cut else "takes the top card of")
        if ev.drawn is None:  # another player's draw: what everyone at the table sees
            take = "cuts a new one from" if cut else "takes the top card of"
            return [f"{self.who(d)}: Change! {self.who(d)} sets a card aside face down and {take} "
                    "the stock."]
        s = "" if d == self.viewer else "s"
        return [f"{self.who(d)}: Change! {self.who(d)} {how} the stock: "
                f"give{s} up {card_text(ev.given)}, draw{s} {card_text(ev.drawn)}."]

    def _dealer_drew_blocker(self, ev: DealerDrewBlocker) -> list[str]:
        d, card = ev.seat, card_text(ev.card)
        if ev.rule == "void":
            return [f"{self._verb(d, 'draws', 'draw')} {card}: it is shown and put back, and "
                    f"{self.whom(d)} {'keep' if d == self.viewer else 'keeps'} the old card."]
        return [f"{self._verb(d, 'draws', 'draw')} {card}: the dealer alone loses this hand."]

    def _dealer_same_rank(self, ev: DealerSameRank) -> list[str]:
        d = ev.seat
        head = (f"{self._verb(d, 'draws', 'draw')} {card_text(ev.drawn)} for "
                f"{card_text(ev.given)}, the same rank: ")
        if ev.rule == "dealer-wins":
            return [head + "every other player loses a life."]
        return [head + f"{self.whom(d)} cannot lose this hand."]

    def _showdown(self, ev: Showdown) -> list[str]:
        lines = [f"Showdown: {self._cards(ev.cards)}."]
        held = dict(ev.cards)
        low = ", ".join(f"{self.who(s)} ({card_text(held[s])})" for s in ev.losers)
        lines.append(f"Lowest: {low}.")
        return lines

    def _lives_lost(self, ev: LivesLost) -> list[str]:
        lines = []
        self._last_payments = list(ev.payments)
        for seat, paid in ev.payments:
            self.lives[seat] -= paid
            what = "a life" if paid == 1 else lives_text(paid)
            verb = "lose" if seat == self.viewer else "loses"
            lines.append(f"{self.who(seat)} {verb} {what}: {lives_text(self.lives[seat])} left.")
        return lines

    def _final_tie(self, ev: FinalTie) -> list[str]:
        who = " and ".join(self.who(s) for s in ev.seats)
        outcome = {
            "replay": "the losses are cancelled and play goes on",
            "split": "they share the pot",
            "cut": "they cut cards for the pot",
            "no-winner": "nobody wins; the pot carries over",
        }.get(ev.rule, ev.rule)
        if ev.rule == "replay":
            for seat, paid in self._last_payments:
                self.lives[seat] += paid
        return [f"{who} lost the last lives at once: {outcome}."]

    def _game_over(self, ev: GameOver) -> list[str]:
        winners = list(ev.winners)
        paid = dict(ev.payouts)
        if not winners:
            return ["The game ends with no winner; the pot carries over."]
        if len(winners) == 1:
            w = winners[0]
            return [f"{self._verb(w, 'wins', 'win')} the game and the pot ({paid.get(w, 0)})!"]
        who = " and ".join(self.who(s) for s in winners)
        return [f"{who} share the pot ({paid.get(winners[0], 0)} each)."]


# --- the rules in plain words --------------------------------------------------------------

def _order_words(ranking: str) -> str:
    strength = STRENGTH[ranking]
    ranks = sorted(strength, key=lambda r: -strength[r])
    return " ".join("10" if r == 10 else "A23456789TJQK"[r - 1] for r in ranks)


def explain_rules(rules: Rules, players: int | None = None) -> list[str]:
    """The rules in force, in plain words, one short paragraph per line."""
    lines = []
    table = f"{players} players, one" if players else "One"
    lines.append(f"{table} card each, dealt from a {rules.deck}-card pack. "
                 f"Each player starts with {lives_text(rules.lives)} (chips) and puts "
                 f"{rules.ante} into the pot.")
    lines.append("A player who loses pays a chip into the kitty, the pile of lost chips in the "
                 "middle; the pot is the money staked, and the winner of the game takes it.")
    lines.append(f"Cards rank from strongest to weakest: {_order_words(rules.ranking)}. "
                 "Suits do not matter. Whoever holds the lowest card at the showdown loses a life.")
    lines.append("In turn, starting left of the dealer, each player may Stand (keep the card) or "
                 "Change (swap it with the left neighbour, who cannot refuse).")
    if rules.blocker_rank is None:
        lines.append("Nothing blocks: every change goes through.")
    else:
        word = rank_word(rules.blocker_rank)
        stop = " and play stops at once" if rules.king_stops_play else ""
        one = _upper_first(rank_word(rules.blocker_rank, article=True))
        lines.append(f"{one} blocks: a player holding the {word} shows it on their turn, and a "
                     f"neighbour asked to change shows it instead; the change is void{stop}.")
    if rules.kings_jerk:
        lines.append(f"Kings Jerk: a player dealt {rank_word(rules.top_rank, article=True)} shows it "
                     "and takes a chip from the kitty.")
    how = ("cuts the stock and takes the card cut" if rules.dealer_exchange == "cut"
           else "takes the top card of the stock")
    lines.append(f"The dealer goes last and, to change, {how}.")
    if rules.first_dealer != "random":
        lines.append({
            "high-card": "The first dealer is whoever draws the strongest card (draw again on a tie).",
            "first-jack": "The first dealer is whoever is dealt the first jack, face up, round the table.",
        }[rules.first_dealer])
    if rules.blocker_rank is not None and rules.dealer_draws_blocker != "allowed":
        word = rank_word(rules.blocker_rank)
        lines.append({
            "void": f"If the dealer draws the {word}, it is shown and put back, and the dealer "
                    "keeps the old card.",
            "dealer-loses": f"If the dealer draws the {word}, the dealer alone loses a life.",
        }[rules.dealer_draws_blocker])
    if rules.dealer_same_rank != "none":
        lines.append({
            "dealer-wins": "If the dealer draws the rank given up, every other player loses a life.",
            "dealer-immune": "If the dealer draws the rank given up, the dealer cannot lose the hand.",
        }[rules.dealer_same_rank])
    if rules.announce_low:
        lines.append("A player forced to give away an Ace or a 2 must say so aloud.")
    if rules.pairing:
        lines.append("Equal ranks pair up: a bigger group beats a smaller one; the weakest group loses.")
    else:
        lines.append({
            "all-lose": "If several hold the lowest rank, they all lose a life.",
            "eldest-loses": "If several hold the lowest rank, only the earliest in turn order loses.",
            "latest-loses": "If several hold the lowest rank, only the last in turn order loses.",
        }[rules.ties])
    if rules.ace_pays_double:
        lines.append("A loser holding an Ace loses two lives.")
    if rules.last_chance:
        lines.append("A player with no chips left stays in 'on the bum' until losing once more.")
    lines.append("Lose all your lives and you are out; the last player in wins the pot. "
                 "If everyone left loses their last life at once: "
                 + {"replay": "those losses are cancelled and play goes on.",
                    "split": "they share the pot.",
                    "cut": "they cut cards for the pot.",
                    "no-winner": "nobody wins and the pot carries over."}[rules.final_tie])
    if rules.between_hands == "to-bottom":
        lines.append("Between hands the cards go under the stock without a shuffle.")
    changed = rules.changes()
    if changed:
        lines.append("Differs from the standard game in: "
                     + ", ".join(f"{k}={_value_text(v)}" for k, v in changed.items()) + ".")
    return lines


def _upper_first(text: str) -> str:
    return text[:1].upper() + text[1:]


def _value_text(value: Any) -> str:
    return str(value).lower() if isinstance(value, bool) else str(value)


def option_rows(rules: Rules) -> list[tuple[str, str, str, str, bool]]:
    """One row per option: key, value in force, meaning, source, whether it differs from standard."""
    return [(key, _value_text(getattr(rules, key)), o.meaning, o.source,
             getattr(rules, key) != o.default) for key, o in OPTIONS.items()]
