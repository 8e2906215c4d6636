"""What a person at the terminal sees of one Lorum seat: the hand by suit, the trick so far, why cards are barred.

Built from a ``LorumObservation`` alone (the seat's own hand and public information), so it can show nothing
a seat may not know.
"""

from __future__ import annotations

from collections.abc import Sequence

from arena.games.base import seat_label
from arena.games.lorum.cards import DECK, INDEX, SUIT_NAMES, SUITS, points, suit
from arena.games.lorum.observation import LorumObservation
from arena.games.lorum.rules import BID, BIG, PLAY, REGULAR, SMALL

_GOALS = {REGULAR: "regular game (take few points)", SMALL: "small (take no trick)", BIG: "big (take every trick)"}


_SUIT_LINES = tuple(
    tuple(f"{SUIT_NAMES[letter]}: {' '.join(DECK[8 * number + rank] for rank in range(8) if byte >> rank & 1)}"
          for byte in range(256))
    for number, letter in enumerate(SUITS)
)
"""``_SUIT_LINES[suit][byte]``: one suit's part of a hand line, for the cards whose bits are set in ``byte``."""


def hand_line(hand: Sequence[str]) -> str:
    """The hand grouped by suit, each suit from the ace down: ``acorns: Aa 9a | hearts: Oh 7h``."""
    mask = 0
    for card in hand:
        mask |= 1 << INDEX[card]
    return mask_line(mask)


def mask_line(mask: int) -> str:
    """``hand_line`` of the cards in a hand mask (``arena.games.lorum.cards``)."""
    # A site build describes a hand at every step of every match: one looked-up line per suit's byte of the
    # mask (the deck's order is suit by suit, each from the ace down).
    return " | ".join([lines[mask >> 8 * number & 255] for number, lines in enumerate(_SUIT_LINES)
                       if mask >> 8 * number & 255]) or "no cards"


def refusals(obs: LorumObservation) -> list[str]:
    """Why the seat's cards that are not legal now are barred (S-6 follow suit, S-8 must beat), one line each."""
    if obs.phase != PLAY or not obs.legal or not obs.trick:
        return []
    barred = [card for card in obs.hand if card not in obs.legal]
    if not barred:
        return []
    led = suit(obs.trick[0][1])
    off_suit = [card for card in barred if suit(card) != led]
    low = [card for card in barred if suit(card) == led]
    lines = []
    if off_suit:
        lines.append(f"not allowed: {' '.join(off_suit)}: you must follow {SUIT_NAMES[led]} (S-6)")
    if low:
        best = min((card for _, card in obs.trick if suit(card) == led), key=INDEX.__getitem__)
        lines.append(f"not allowed: {' '.join(low)}: in the small game you must beat {best} when you can (S-8)")
    return lines


def describe(obs: LorumObservation, names: Sequence[str] = ()) -> list[str]:
    """Lines for a person playing ``obs.seat``: the deal, the contract, chips, the trick so far and the hand."""
    def label(seat: int) -> str:
        return seat_label(seat, names)

    lines = [f"you are {label(obs.seat)}; deal {obs.deal} of {obs.deals}, dealt by {label(obs.dealer)}"]
    balances = ", ".join(f"{label(seat)} {chips:+d}" for seat, chips in enumerate(obs.balances))
    lines.append(f"chips: {balances}; pot {obs.pot}")
    if obs.phase == BID:
        calls = ", ".join(f"{label(seat)} {call}" for seat, call in obs.bids) or "none yet"
        lines.append(f"bids so far: {calls}")
    elif obs.contract is not None:
        by = f", bid by {label(obs.bidder)}" if obs.bidder is not None else ""
        lines.append(f"contract: {_GOALS.get(obs.contract, obs.contract)}{by}")
        taken = ", ".join(f"{label(seat)} {tricks}/{pts}"
                          for seat, (tricks, pts) in enumerate(zip(obs.tricks_won, obs.points)))
        lines.append(f"tricks/points taken this deal: {taken}")
        if obs.tricks:
            plays, winner = obs.tricks[-1]
            shown = ", ".join(f"{label(seat)} {card}" for seat, card in plays)
            lines.append(f"last trick: {shown}; won by {label(winner)}")
        if obs.phase == PLAY:
            number = len(obs.tricks) + 1
            if obs.trick:
                shown = ", ".join(f"{label(seat)} {card}" for seat, card in obs.trick)
                worth = sum(points(card) for _, card in obs.trick)
                lines.append(f"trick {number} so far: {shown} ({worth} point{'s' if worth != 1 else ''})")
            elif obs.leader is not None:
                lines.append(f"trick {number}: {label(obs.leader)} leads")
    lines.append(f"your hand: {hand_line(obs.hand)}")
    lines.extend(refusals(obs))
    return lines
