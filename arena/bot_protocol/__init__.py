"""The spades.v1 bot protocol on the arena's side: engine values to and from its messages.

One floor above the engine (``arena.rules``) and below everything that talks to a bot: the
referee, the SDK, the human seat, the service. It imports only the engine and the generated
messages.
"""
