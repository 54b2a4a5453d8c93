"""The lobby: rooms per game and tier, sitting, standing, readiness and quick match."""
