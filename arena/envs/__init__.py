"""Two-player Spades for research: a PettingZoo environment and an OpenSpiel game on the engine.

The faces share one action space (``arena.envs.actions``) and one observation encoding
(``arena.envs.encoding``) built from the engine's ``Observation`` - exactly the information
set of spades-rules.md, the same facts a bot is sent - so a policy trained in either plays
as a bot through ``arena.sdk.policy``. They need the ``research`` extra
(``pip install -e '.[research]'``: numpy, pettingzoo, gymnasium, open-spiel); nothing here is
imported by ``import arena``.

- ``arena.envs.spades_v0``: the PettingZoo AEC environment (``env()``, ``raw_env()``).
- ``arena.envs.spades_2p``: the OpenSpiel game ``spades_2p``, registered on import.
- ``arena.envs.determinize``: positions sampled from an information set, for search.
"""
