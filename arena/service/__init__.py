"""The arena as a gRPC service (arena.v1): bot submission, tournaments, matches, leaderboard."""
