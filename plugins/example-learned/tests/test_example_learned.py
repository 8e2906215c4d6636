"""The learned agent's own tests (run with the package installed): arena's conformance kit, then its strength."""

from __future__ import annotations

from arena.conformance import assert_agent_conforms


def test_learned_agent_conforms() -> None:
    # Against random opponents, isolated as in a tournament: legal, in time, deterministic.
    report = assert_agent_conforms("learned", "lorum", matches=2)
    assert report.move_seconds_max is not None and report.move_seconds_max < 1.0


def test_learned_beats_random_at_lorum() -> None:
    import arena

    learned = others = 0.0
    for seed in range(4):
        seats = ["random"] * 4
        seats[seed % 4] = "learned"
        scores = arena.play_match("lorum", seats, seed=seed, plugins_dir=None).record["result"]["scores"]
        learned += scores[seed % 4]
        others += (sum(scores) - scores[seed % 4]) / 3
    assert learned > others
