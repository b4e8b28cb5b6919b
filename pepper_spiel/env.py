"""Pepper as a PettingZoo AEC environment, over the OpenSpiel game (:mod:`pepper_spiel.game`).

    from pepper_spiel.env import env
    e = env(ruleset="iowa")
    e.reset(seed=1)
    for agent in e.agent_iter():
        obs, reward, termination, truncation, info = e.last()
        action = None if termination or truncation else e.action_space(agent).sample(obs["action_mask"])
        e.step(action)

Agents are ``seat_0`` ... ``seat_{n-1}``. An observation is a dict: ``observation``,
the seat's information tensor (the OpenSpiel game's; it holds only what the seat
may know), and ``action_mask`` over the engine's action ids. Chance (the deal) is
drawn from the environment's ``np_random`` (``reset(seed=...)`` makes a game
reproducible). Rewards come at the end of the game: +1 to every winning seat,
-1 to the others, 0 to all in a draw.
"""

from __future__ import annotations

import numpy as np
import pyspiel
from gymnasium import spaces
from pettingzoo import AECEnv

from .game import SHORT_NAME

__all__ = ["PepperEnv", "env"]


def env(ruleset: str = "iowa", players: int = 0, deal_cap: int = 0, render_mode: str | None = None) -> PepperEnv:
    """A Pepper environment (``players`` 0: the ruleset's default; ``deal_cap`` 0: the ruleset's own)."""
    return PepperEnv(ruleset, players, deal_cap, render_mode)


class PepperEnv(AECEnv):
    metadata = {"name": "pepper_v0", "render_modes": ["ansi"], "is_parallelizable": False}

    def __init__(self, ruleset: str = "iowa", players: int = 0, deal_cap: int = 0, render_mode: str | None = None):
        super().__init__()
        self.game = pyspiel.load_game(SHORT_NAME, {"ruleset": ruleset, "players": players, "deal_cap": deal_cap})
        n, size = self.game.num_players(), self.game.num_distinct_actions()
        self.possible_agents = [f"seat_{s}" for s in range(n)]
        self._seat = {a: s for s, a in enumerate(self.possible_agents)}
        shape = tuple(self.game.information_state_tensor_shape())
        obs = spaces.Dict({
            "observation": spaces.Box(-np.inf, np.inf, shape, np.float32),
            "action_mask": spaces.Box(0, 1, (size,), np.int8),
        })
        self.observation_spaces = {a: obs for a in self.possible_agents}
        self.action_spaces = {a: spaces.Discrete(size) for a in self.possible_agents}
        self.render_mode = render_mode
        self.state = None

    def observation_space(self, agent: str):
        return self.observation_spaces[agent]

    def action_space(self, agent: str):
        return self.action_spaces[agent]

    def reset(self, seed: int | None = None, options: dict | None = None) -> None:
        if seed is not None or not hasattr(self, "np_random"):
            self.np_random = np.random.default_rng(seed)
        self.state = self.game.new_initial_state()
        self._play_chance()
        self.agents = list(self.possible_agents)
        self.rewards = {a: 0.0 for a in self.agents}
        self._cumulative_rewards = {a: 0.0 for a in self.agents}
        self.terminations = {a: False for a in self.agents}
        self.truncations = {a: False for a in self.agents}
        self.infos = {a: {} for a in self.agents}
        self.agent_selection = self.possible_agents[self.state.current_player()]

    def _play_chance(self) -> None:
        s = self.state
        while s.is_chance_node():
            outcomes, probs = zip(*s.chance_outcomes())
            s.apply_action(int(self.np_random.choice(outcomes, p=probs)))

    def observe(self, agent: str) -> dict:
        seat = self._seat[agent]
        mask = np.zeros(self.game.num_distinct_actions(), np.int8)
        if not self.state.is_terminal() and self.state.current_player() == seat:
            mask[self.state.legal_actions(seat)] = 1
        obs = np.asarray(self.state.information_state_tensor(seat), np.float32)
        return {"observation": obs, "action_mask": mask}

    def step(self, action) -> None:
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        legal = self.state.legal_actions()
        if action is None or int(action) not in legal:
            raise ValueError(f"{agent}: action {action!r} is not legal here; legal ids: {legal} "
                             f"(observation['action_mask'] marks them)")
        self._cumulative_rewards[agent] = 0.0
        self.state.apply_action(int(action))
        self._play_chance()
        if self.state.is_terminal():
            for a, r in zip(self.possible_agents, self.state.returns()):
                self.rewards[a] = r
                self.terminations[a] = True
            self.agent_selection = agent
        else:
            self.agent_selection = self.possible_agents[self.state.current_player()]
        self._accumulate_rewards()

    def render(self) -> str | None:
        if self.render_mode == "ansi":
            return str(self.state)
        return None

    def close(self) -> None:
        pass
