"""The expert bot's parts: inference over the hidden cards, play-outs, and the searches.

- ``inference``: what the bot knows of the opponent's hand, and deals sampled consistently
  with it (voids, seen cards, the exchange), weighted by the opponent's bid.
- ``rollout``: a lean play policy over bit masks, playing a determinized hand to its end.
- ``search``: PIMC for the play, simulation-based bidding, the draw and Double Nil choices.
"""
