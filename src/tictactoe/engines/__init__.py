"""Engines: search, players, analysis and compiled kernels, built on the rules core."""
