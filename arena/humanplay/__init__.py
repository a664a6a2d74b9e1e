"""A person at the table: a seat answered from a browser, played by the arena's own referee.

``HumanSeat`` is a bot connection like any other (a name and a session the referee asks in this
process): the referee asks it, clocks it and judges its answers exactly as a bot's. ``Table``
runs one match of a person against a bot in the web server's process and records it in the
store.
"""

from arena.humanplay.seat import AnswerRefused, HumanSeat
from arena.humanplay.table import Table, TableError, Tables

__all__ = ["AnswerRefused", "HumanSeat", "Table", "TableError", "Tables"]
