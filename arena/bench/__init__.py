"""Benchmarks of the arena: commands that print measured figures."""
