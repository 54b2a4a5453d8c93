"""The games: each one a package of its own rules (zhajinhua, hunzhan, chaodipi), the trick-game
helpers they share (tricks), the engine contract every hand implements (engine), and the registry
the services find them through (registry)."""
