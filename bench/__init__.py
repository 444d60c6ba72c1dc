"""Chatkeep's benchmarks: `make bench` (or `python -m bench`)."""
