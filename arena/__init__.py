"""Spades Arena: a self-hosted arena for two-player Spades bots."""

from arena.grpc_engine import prefer_iomgr as _prefer_iomgr

__version__ = "0.1.0"

_prefer_iomgr()  # before anything imports grpc (arena.grpc_engine says why)
