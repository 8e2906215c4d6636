"""What a person at the terminal sees of one Lovat seat, and how their typed keep is read.

Built from a ``LovatObservation`` alone (the seat's own cards and public information), so it can show nothing
a seat may not know.
"""

from __future__ import annotations

from collections.abc import Sequence

from arena.games.base import Action, plural, seat_label
from arena.games.lovat.deck import COLOUR_INDEX, LEVEL, STRENGTH
from arena.games.lovat.observation import LovatObservation
from arena.games.lovat.rules import KEEP


def card_text(card_id: str, colour: str | None) -> str:
    """A card with its strengths: in the turn's colour alone once there is one, else in every colour."""
    strengths = STRENGTH[card_id]
    if colour is not None:
        return f"{card_id} ({colour} {strengths[COLOUR_INDEX[colour]]})"
    return f"{card_id} (" + " ".join(f"{name} {strengths[index]}" for name, index in COLOUR_INDEX.items()) + ")"


def sorted_cards(cards: Sequence[str], colour: str | None) -> list[str]:
    """Cards strongest first in the turn's colour, or by level then id when no colour is named."""
    if colour is not None:
        index = COLOUR_INDEX[colour]
        return sorted(cards, key=lambda card_id: (-STRENGTH[card_id][index], card_id))
    return sorted(cards, key=lambda card_id: (LEVEL[card_id], card_id))


def hand_lines(cards: Sequence[str]) -> list[str]:
    """Cards before a colour is named: grouped by level (what a keep adds up), one a line with every strength."""
    lines = []
    for level in sorted({LEVEL[card_id] for card_id in cards}):
        group = sorted_cards([card_id for card_id in cards if LEVEL[card_id] == level], None)
        lines.append(f"level {level} ({len(group)} card{'s' if len(group) != 1 else ''}):")
        lines.extend("  " + card_text(card_id, None) for card_id in group)
    return lines or ["no cards"]


def hand_line(obs: LovatObservation) -> str:
    """The seat's cards on one line, by level (``L1: L1-03 L1-17 | L2: L2-05``), with its counters."""
    groups: dict[int, list[str]] = {}
    for card_id in sorted_cards(obs.hand, None):
        groups.setdefault(LEVEL[card_id], []).append(card_id)
    cards = " | ".join(f"L{level}: {' '.join(ids)}" for level, ids in groups.items()) or "no cards"
    return f"{cards}; {plural(obs.counters, 'counter')}" if obs.phase != KEEP else cards


def describe(obs: LovatObservation, names: Sequence[str] = ()) -> list[str]:
    """Lines for a person playing ``obs.seat``: the turn, every seat's public state, the cards played, the hand."""

    def label(seat: int) -> str:
        return seat_label(seat, names)

    lines = [f"you are {label(obs.seat)} of {obs.players}; dealer {label(obs.dealer)}, "
             f"first player {label(obs.first_player)}"]
    if obs.phase == KEEP:
        lines.append(f"keep cards whose levels sum to {obs.level_sum}, {obs.min_size} to {obs.max_size} cards; "
                     "the rest become counters")
        lines.append("your dealt cards:")
        lines.extend("  " + line for line in hand_lines(obs.dealt))
        return lines
    where = "game over" if obs.active is None else (
        f"turn {obs.turn + 1} of {obs.turns} (round {obs.round + 1}{', die round' if obs.die_round else ''}), "
        f"{label(obs.active)} active"
    )
    lines.append(where)
    if obs.die is not None:
        lines.append(f"die: {obs.die}")
    if obs.colour is not None:
        lines.append(f"colour: {obs.colour}")
    for seat in range(obs.players):
        points = ", ".join(obs.point_cards[seat]) or "none"
        lines.append(f"{label(seat)}: {plural(obs.hand_sizes[seat], 'card')}, "
                     f"{plural(obs.counter_counts[seat], 'counter')}, "
                     f"points: {points}" + (" (passed)" if obs.passes[seat] else ""))
    best = None
    if obs.plays:
        lines.append("played this turn: " + ", ".join(f"{label(seat)} {card_text(card_id, obs.colour)}"
                                                      for seat, card_id in obs.plays))
        if obs.colour is not None:
            index = COLOUR_INDEX[obs.colour]
            # L-13: the highest strength wins, a tie goes to the card played first
            best_seat, best = max(obs.plays, key=lambda play: STRENGTH[play[1]][index])
            lines.append(f"best so far: {label(best_seat)} {card_text(best, obs.colour)}")
    lines.append(f"your counters: {obs.counters}; your hand:")
    if obs.colour is None:
        lines.extend("  " + line for line in hand_lines(obs.hand))
        return lines
    # A colour is named: the hand strongest first in it, as the turn is decided (L-13).
    index = COLOUR_INDEX[obs.colour]
    for card_id in sorted_cards(obs.hand, obs.colour):
        wins = best is not None and STRENGTH[card_id][index] > STRENGTH[best][index]
        lines.append(f"  {card_text(card_id, obs.colour)} level {LEVEL[card_id]}" + (", beats it" if wins else ""))
    return lines


def parse_keep(obs: LovatObservation, text: str) -> Action | None:
    """A keep typed as card ids in any order and any case, separated by spaces or commas; None if empty.

    Ids that were not dealt are kept as typed so that the keep check names them.
    """
    dealt = {card_id.casefold(): card_id for card_id in obs.dealt}
    typed = text.replace(",", " ").split()
    if not typed:
        return None
    return tuple(sorted(dealt.get(token.casefold(), token) for token in typed))
