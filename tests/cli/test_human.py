"""A person at the terminal: sees only their seat, is offered legal choices, and is re-asked on bad input."""

from __future__ import annotations

import builtins
import io
import json
import os
import pty
import random
import select
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from arena.cli import main
from arena.cli.human import HumanAgent, InputEnded
from arena.games.lorum import GAME as LORUM
from arena.games.lorum.cards import DECK
from arena.games.lovat import CARDS, GAME
from arena_agents.lovat import random_keep


def scripted_reader(answers: list[str]):
    prompts: list[str] = []

    def read(prompt: str) -> str:
        prompts.append(prompt)
        if not answers:
            raise EOFError
        return answers.pop(0)

    return read, prompts


def test_keep_is_typed_and_a_bad_keep_is_asked_again() -> None:
    state = GAME.new_state(3, {"players": 4})
    observation = state.observation(0)
    legal = random_keep(observation.dealt, observation.level_sum, observation.min_size, observation.max_size,
                        random.Random(1))
    read, prompts = scripted_reader([observation.dealt[0], " ".join(legal)])
    out = io.StringIO()
    action = HumanAgent(seat=0, game=GAME, players=4, read=read, out=out).act(observation)
    assert action == tuple(sorted(legal))
    assert len(prompts) == 2
    assert "not legal:" in out.getvalue()
    state.apply(0, action)


def test_menu_choices_and_bad_numbers() -> None:
    state = GAME.new_state(3, {"players": 4})
    for seat in state.to_move():
        obs = state.observation(seat)
        state.apply(seat, tuple(sorted(random_keep(obs.dealt, obs.level_sum, obs.min_size, obs.max_size,
                                                   random.Random(seat)))))
    [seat] = state.to_move()
    observation = state.observation(seat)
    read, prompts = scripted_reader(["0", "banana", "2"])
    out = io.StringIO()
    action = HumanAgent(seat=seat, game=GAME, players=4, read=read, out=out).act(observation)
    assert action == observation.legal[1]
    assert len(prompts) == 3 and out.getvalue().count("is not a choice") == 2


def test_the_view_shows_only_the_seats_own_cards() -> None:
    state = GAME.new_state(8, {"players": 4})
    out = io.StringIO()
    read, _ = scripted_reader([])
    with pytest.raises(InputEnded):
        HumanAgent(seat=1, game=GAME, players=4, read=read, out=out).act(state.observation(1))
    shown = out.getvalue()
    own = state.observation(1).dealt
    others = {card for seat in (0, 2, 3) for card in state.observation(seat).dealt}
    assert all(card in shown for card in own)
    assert not any(card in shown for card in others)


# -- Lorum: a scripted deal whose first trick shows must-follow and must-beat -------------------------------

SEAT0 = ["8a", "7g", "8g", "9g", "7h", "8h", "7b", "8b"]
SEAT1 = ["Aa", "Ka", "7a", "Kg", "Ah", "Kh", "Ab", "Kb"]
REST = [card for card in DECK if card not in SEAT0 + SEAT1]


def small_game_first_trick():
    """Dealer 3, so seat 0 bids first: it calls small, the rest pass, and it leads 8a."""
    deal = [SEAT0, SEAT1, REST[:8], REST[8:]]
    state = LORUM.new_state(0, {"deals": 1}, script=[{"kind": "dealer", "value": 3}, {"kind": "deal", "value": deal}])
    for seat, call in ((0, "small"), (1, "pass"), (2, "pass"), (3, "pass")):
        state.apply(seat, call)
    state.apply(0, "8a")
    return state


def test_lorum_view_groups_the_hand_names_the_trick_and_says_why_cards_are_barred() -> None:
    state = small_game_first_trick()
    observation = state.observation(1)
    assert observation.legal == ("Aa", "Ka")
    read, prompts = scripted_reader(["ka"])  # by name, in any case
    out = io.StringIO()
    names = ["greedy", "you", "search", "random"]
    action = HumanAgent(seat=1, game=LORUM, players=4, read=read, out=out, names=names).act(observation)
    assert action == "Ka" and len(prompts) == 1
    shown = out.getvalue()
    assert "your hand: acorns: Aa Ka 7a | green: Kg | hearts: Ah Kh | bells: Ab Kb" in shown
    assert "trick 1 so far: seat 0 (greedy) 8a" in shown
    assert "not allowed: Kg Ah Kh Ab Kb: you must follow acorns (S-6)" in shown
    assert "not allowed: 7a: in the small game you must beat 8a when you can (S-8)" in shown
    assert "contract: small (take no trick), bid by seat 0 (greedy)" in shown
    assert not any(card in shown for card in REST)  # nobody else's cards


def test_a_forced_move_is_played_without_a_prompt_and_said() -> None:
    state = LORUM.new_state(0, {"deals": 1}, script=[{"kind": "dealer", "value": 3}])
    state.apply(0, "big")  # after a big bid the others can only pass (S-4)
    observation = state.observation(1)
    assert observation.legal == ("pass",)
    read, prompts = scripted_reader([])
    out = io.StringIO()
    action = HumanAgent(seat=1, game=LORUM, players=4, read=read, out=out).act(observation)
    assert action == "pass" and prompts == []
    assert "forced: pass (your only legal move, played for you)" in out.getvalue()


def test_a_menu_choice_by_name_ignores_case_and_a_wrong_name_is_asked_again() -> None:
    state = LORUM.new_state(0, {"deals": 1}, script=[{"kind": "dealer", "value": 3}])
    observation = state.observation(0)
    read, prompts = scripted_reader(["smal", "SMALL"])
    out = io.StringIO()
    assert HumanAgent(seat=0, game=LORUM, players=4, read=read, out=out).act(observation) == "small"
    assert len(prompts) == 2 and "'smal' is not a choice" in out.getvalue()


def test_a_lovat_keep_is_read_in_any_order_and_any_case() -> None:
    state = GAME.new_state(3, {"players": 4})
    observation = state.observation(0)
    legal = random_keep(observation.dealt, observation.level_sum, observation.min_size, observation.max_size,
                        random.Random(1))
    typed = ", ".join(card.lower() for card in reversed(sorted(legal)))
    read, prompts = scripted_reader([typed])
    action = HumanAgent(seat=0, game=GAME, players=4, read=read, out=io.StringIO()).act(observation)
    assert action == tuple(sorted(legal)) and len(prompts) == 1


# -- `arena play` with a person at a seat ---------------------------------------------------------------

def test_the_word_human_in_agents_seats_a_person(capsys: pytest.CaptureFixture[str],
                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    read, prompts = scripted_reader(["1"] * 40)
    monkeypatch.setattr(builtins, "input", read)
    status = main(["play", "lorum", "--agents", "human,greedy,search,random", "--seed", "5", "--deals", "1",
                   "--option", "search.iterations=20"])
    out = capsys.readouterr().out
    assert status == 0
    assert "  seat 0: human\n  seat 1: greedy\n  seat 2: search\n  seat 3: random\n" in out
    assert "--- seat 0, your decision" in out and "you are seat 0 (you)" in out and "seat 2 (search)" in out
    decisions = out.count("--- seat 0, your decision")
    assert len(prompts) == decisions - out.count("forced: ")  # a forced move asks nothing


def test_input_that_ends_mid_game_abandons_it_in_one_line(capsys: pytest.CaptureFixture[str],
                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    # The referee took the person's leaving for the seat's fault: a substitute played on and the game 'ended'
    # with status 0.
    read, prompts = scripted_reader([])
    monkeypatch.setattr(builtins, "input", read)
    status = main(["play", "lorum", "--human", "0", "--seed", "5", "--deals", "1"])
    assert len(prompts) == 1  # the first decision asked, and the input was over
    captured = capsys.readouterr()
    assert status == 1 and captured.err == "arena: error: input ended before the game did; game abandoned\n"
    assert "fault:" not in captured.out


@pytest.mark.parametrize(("argv", "message"), [
    (["--agents", "human,human,random,random"], "one person can play one seat, not seats 0, 1"),
    (["--agents", "human,random,random,random", "--human", "2"], "one person can play one seat, not seats 0, 2"),
])
def test_one_person_plays_one_seat(capsys: pytest.CaptureFixture[str], argv: list[str], message: str) -> None:
    status = main(["play", "lorum", *argv])
    err = capsys.readouterr().err
    assert status == 2 and err == f"arena: error: {message} (--agents 'human' and --human)\n"


PROMPTS = (b"or type a name:", b"separated by spaces):")
"""How the human seat's prompts end (a menu; a typed Lovat keep)."""


def play_on_a_terminal(cwd: Path, argv: list[str], respond: Callable[[str], str]) -> tuple[int, str, int]:
    """Run ``arena ARGV`` on a pseudo-terminal; whenever the output so far ends with a prompt (``PROMPTS``),
    type ``respond(that output)`` and Enter. The exit status, everything shown, and how many prompts.

    Only whole prompts are answered: output arrives in chunks, and a chunk may end at any colon."""
    arena = Path(sys.executable).with_name("arena")
    controller, terminal = pty.openpty()
    process = subprocess.Popen([str(arena), *argv], stdin=terminal, stdout=terminal, stderr=terminal, cwd=cwd,
                               close_fds=True)
    os.close(terminal)
    seen = b""
    answered = 0
    try:
        while True:
            ready, _, _ = select.select([controller], [], [], 60)
            if not ready:
                process.kill()
                pytest.fail(f"no output for 60 s; last seen: {seen[-300:]!r}")
            try:
                chunk = os.read(controller, 4096)
            except OSError:  # the command exited and closed the terminal
                break
            if not chunk:
                break
            seen += chunk
            if seen.rstrip().endswith(PROMPTS):
                os.write(controller, respond(seen.decode()).encode() + b"\n")
                answered += 1
                seen += b"\n"
    finally:
        try:
            process.wait(timeout=60)
        finally:
            process.kill()  # nothing if it exited; a test that failed must not leave it waiting for input
            os.close(controller)
    return process.returncode, seen.decode(), answered


@pytest.mark.slow
def test_a_person_plays_lorum_through_a_pseudo_terminal(tmp_path: Path) -> None:
    """The real command on a terminal: every prompt answered by typing a number, then the result."""
    status, text, answered = play_on_a_terminal(
        tmp_path, ["play", "lorum", "--agents", "human,greedy,random,random", "--seed", "9", "--deals", "1"],
        lambda shown: "1")
    assert status == 0, text[-500:]
    assert answered >= 1 and "your hand:" in text and "Result:" in text


@pytest.mark.slow
def test_a_person_plays_lovat_through_a_pseudo_terminal(tmp_path: Path) -> None:
    """The real command on a terminal, Lovat: the keep typed as card ids in any order and case (a wrong
    keep first, which is refused and asked again), then every menu answered by number; the record holds
    the typed keep for seat 0."""
    seed = 11
    dealt = GAME.new_state(seed, {"players": 3}).observation(0)
    keep = sorted(random_keep(dealt.dealt, dealt.level_sum, dealt.min_size, dealt.max_size, random.Random(1)))
    keeps_typed = iter(["nonsense", " ".join(reversed(keep)).lower()])

    def respond(shown: str) -> str:
        return next(keeps_typed) if shown.rstrip().endswith("separated by spaces):") else "1"

    record = tmp_path / "match.json"
    status, text, answered = play_on_a_terminal(
        tmp_path, ["play", "lovat", "--players", "3", "--agents", "human,greedy,random", "--seed", str(seed),
                   "--record", str(record)], respond)
    assert status == 0, text[-500:]
    assert "not legal:" in text and "Result:" in text
    assert answered >= 3
    first = next(action for action in json.loads(record.read_text())["actions"] if action["seat"] == 0)
    assert sorted(first["action"]) == keep


def test_the_lovat_view_sorts_the_hand_in_the_turns_colour_and_marks_what_beats_the_best_card() -> None:
    state = GAME.new_state(3, {"players": 4})
    for seat in state.to_move():
        obs = state.observation(seat)
        state.apply(seat, tuple(sorted(random_keep(obs.dealt, obs.level_sum, obs.min_size, obs.max_size,
                                                   random.Random(seat)))))
    choose = random.Random(2)
    while True:  # on to a play decision after someone has played
        [seat] = state.to_move()
        observation = state.observation(seat)
        if observation.phase == "play" and observation.plays:
            break
        state.apply(seat, choose.choice(observation.legal))
    names = ["greedy", "random", "search", "greedy"]
    lines = GAME.describe_observation(observation, names)
    colour = observation.colour
    assert colour is not None
    strength = {card.id: card.strength(colour) for card in CARDS}
    best_seat, best = observation.plays[0]  # L-13: the first of the strongest
    for played_seat, card_id in observation.plays[1:]:
        if strength[card_id] > strength[best]:
            best_seat, best = played_seat, card_id
    assert f"best so far: seat {best_seat} ({names[best_seat]}) {best} ({colour} {strength[best]})" in lines
    start = lines.index(f"your counters: {observation.counters}; your hand:") + 1
    shown = lines[start:]
    assert [line.split()[0] for line in shown] == sorted(observation.hand, key=lambda card_id: -strength[card_id])
    for line in shown:
        assert line.endswith(", beats it") == (strength[line.split()[0]] > strength[best])


@pytest.mark.parametrize("players", [3, 4, 5, 6])
def test_a_person_can_finish_a_lovat_game_at_every_table_size(players: int) -> None:
    """Every phase (keep, colour, declare, play, void) is shown and read: the person types a legal keep in
    lower case, then a choice's name in upper case; a forced decision asks nothing."""
    state = GAME.new_state(players, {"players": players})
    asked = 0
    while not state.is_over():
        for seat in state.to_move():
            observation = state.observation(seat)
            if seat != 0:
                action = observation.legal[0] if observation.legal else tuple(sorted(random_keep(
                    observation.dealt, observation.level_sum, observation.min_size, observation.max_size,
                    random.Random(seat))))
                state.apply(seat, action)
                continue
            if observation.legal:
                answer = str(observation.legal[-1]).upper()
            else:
                answer = " ".join(random_keep(observation.dealt, observation.level_sum, observation.min_size,
                                              observation.max_size, random.Random(7))).lower()
            read, prompts = scripted_reader([answer])
            out = io.StringIO()
            action = HumanAgent(seat=0, game=GAME, players=players, read=read, out=out).act(observation)
            assert len(prompts) == (0 if len(observation.legal) == 1 else 1), out.getvalue()
            asked += len(prompts)
            state.apply(0, action)
    assert asked > 1


def test_a_person_can_finish_a_lorum_game_typing_card_names_in_any_case() -> None:
    state = LORUM.new_state(21, {"deals": 4})
    asked = 0
    while not state.is_over():
        [seat] = state.to_move()
        observation = state.observation(seat)
        if seat != 2:
            state.apply(seat, observation.legal[0])
            continue
        read, prompts = scripted_reader([str(observation.legal[-1]).swapcase()])
        out = io.StringIO()
        action = HumanAgent(seat=2, game=LORUM, players=4, read=read, out=out).act(observation)
        assert action == observation.legal[-1] and len(prompts) == (len(observation.legal) > 1)
        asked += len(prompts)
        state.apply(seat, action)
    assert asked > 4
