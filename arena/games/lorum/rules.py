"""Slovak Lorum's rules as data: the game id, phases and calls, the stakes and the settlement of a deal.

Constants and pure functions only; the state machine (``state.py``), the deal
(``deal.py``), observations, the sampler, the encoding and the agents read the
rules from here.  Rulings are cited by label (S-n); the rules as implemented
are in ``docs/rules/lorum.md``.
"""

from __future__ import annotations

from collections.abc import Sequence

from arena.games.lorum.cards import TRICKS_PER_DEAL

GAME_ID = "lorum-v1"
"""Versioned game id: bump on any rules change."""

PLAYERS = 4
"""Slovak Lorum is for exactly 4 players."""

BID, PLAY, OVER = "bid", "play", "over"
"""Phase names."""

PASS, SMALL, BIG = "pass", "small", "big"
"""Bidding calls (S-4)."""

REGULAR = "regular"
"""The contract when everybody passes (S-5)."""

BIG_STAKE = 20
"""S-14: what the big bidder is paid by, or pays to, each opponent."""

SMALL_STAKE = 10
"""S-15: what the small bidder is paid by, or pays to, each opponent."""

UNANNOUNCED_BIG_STAKE = 10
"""S-13: what each other player pays a player who took all 8 tricks of a regular game."""

# Settlement cases, as reported in "deal_end" events and past deals.
POT_CARRIED = "pot carried"  # S-11, k = 0
POT_WON = "pot won"  # S-11, k = 1
SPLIT = "split"  # S-11, k = 2 (S-12 odd chips)
ALL_POINTS = "all points"  # S-11, k = 3
UNANNOUNCED_BIG = "unannounced big"  # S-13
BIG_MADE, BIG_FAILED = "big made", "big failed"  # S-14
SMALL_MADE, SMALL_FAILED = "small made", "small failed"  # S-15

Settlement = tuple[tuple[int, ...], int, str]
"""``(chip change per seat, pot after, case)``."""


def settle_regular(points: Sequence[int], tricks_won: Sequence[int], pot: int) -> Settlement:
    """Settle a finished regular game (S-11, S-12, S-13).

    ``points`` and ``tricks_won`` are per seat; ``pot`` is the pot before the deal
    is settled.  Returns the chip change per seat, the pot after, and the case.
    """
    players = len(points)
    if TRICKS_PER_DEAL in tricks_won:
        # S-13: unannounced big: each other player pays 10; no points paid, pot untouched.
        taker = tricks_won.index(TRICKS_PER_DEAL)
        paid = tuple(
            UNANNOUNCED_BIG_STAKE * (players - 1) if seat == taker else -UNANNOUNCED_BIG_STAKE
            for seat in range(players)
        )
        return paid, pot, UNANNOUNCED_BIG
    # S-11: everybody pays their points into the pot first.
    deltas = [-p for p in points]
    pot += sum(points)
    clean = [seat for seat in range(players) if points[seat] == 0]
    if len(clean) == 0:
        case = POT_CARRIED
    elif len(clean) == 1:
        deltas[clean[0]] += pot
        pot = 0
        case = POT_WON
    elif len(clean) == 2:
        share = pot // 2  # S-12: the odd chip stays in the pot
        for seat in clean:
            deltas[seat] += share
        pot -= 2 * share
        case = SPLIT
    else:
        # k = 3: one player took all 20 points without all tricks; their 20 stay in the pot.
        case = ALL_POINTS
    return tuple(deltas), pot, case


def settle_contract(contract: str, bidder: int, tricks_won: Sequence[int], players: int = PLAYERS) -> Settlement:
    """Settle a big (S-14) or small (S-15) contract; the pot is untouched (returned as 0 change).

    The deal is made when the big bidder took every trick, or the small bidder none.
    The returned pot is meaningless (callers keep their pot): it is 0.
    """
    if contract == BIG:
        made = tricks_won[bidder] == sum(tricks_won) == TRICKS_PER_DEAL
        stake, case = BIG_STAKE, (BIG_MADE if made else BIG_FAILED)
    elif contract == SMALL:
        made = tricks_won[bidder] == 0 and sum(tricks_won) == TRICKS_PER_DEAL
        stake, case = SMALL_STAKE, (SMALL_MADE if made else SMALL_FAILED)
    else:
        raise ValueError(f"not a contract: {contract!r}")
    sign = 1 if made else -1
    deltas = tuple(sign * stake * (players - 1) if seat == bidder else -sign * stake for seat in range(players))
    return deltas, 0, case
