"""Bad agent ``bad-illegal``: plays randomly for ``options["after"]`` decisions, then a well-formed illegal card.

It misbehaves at the first decision after that with a menu of legal actions
(not during Lovat's keep), choosing a card of the deck that is not on the menu.
"""

from arena import hookimpl
from arena.agent import Agent, AgentSpec
from arena.games.lorum.cards import DECK
from arena.games.lovat.deck import CARD_IDS
from arena_agents.lorum import RandomLorumAgent
from arena_agents.lovat import RandomLovatAgent


class IllegalAgent(Agent):
    def __init__(self, seat, game, players, seed, options):
        super().__init__(seat=seat, game=game, players=players, seed=seed, options=options)
        inner = RandomLovatAgent if game.name == "lovat" else RandomLorumAgent
        self.inner = inner(seat=seat, game=game, players=players, seed=seed, options={})
        self.cards = CARD_IDS if game.name == "lovat" else DECK
        self.decisions = 0

    def act(self, observation):
        self.decisions += 1
        if self.decisions > self.options.get("after", 2) and observation.legal:
            return next(card for card in self.cards if card not in observation.legal)
        return self.inner.act(observation)


@hookimpl
def arena_register_agents(register):
    register(AgentSpec(name="bad-illegal", games=("lovat", "lorum"), factory=IllegalAgent,
                       description="plays a card it may not play", version="1.0"))
