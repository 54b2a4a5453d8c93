"""The ``paiju`` command."""

from __future__ import annotations

import argparse
import sys

from paiju.games.zhajinhua import Room


def _demo(args: argparse.Namespace) -> int:
    from paiju.demo import run_table

    room = Room.EXPERT if args.room == "expert" else Room.FREE
    try:
        run_table(players=args.players, hands=args.hands, coins=args.coins, seed=args.seed,
                  room=room, bots=args.bots)
    except KeyboardInterrupt:
        print("\nstopped")
    return 0


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="paiju", description="Paiju (牌局) card-game server")
    commands = parser.add_subparsers(dest="command", required=True)
    demo = commands.add_parser("demo", help="bots play 炸金花 in this process; every hand is printed")
    demo.add_argument("--players", type=int, default=4, help="2–5 bots (default 4)")
    demo.add_argument("--hands", type=int, default=10, help="hands to play; 0 plays on (default 10)")
    demo.add_argument("--coins", type=int, default=20_000, help="each bot's starting coins")
    demo.add_argument("--seed", type=int, default=None, help="replay a session exactly")
    demo.add_argument("--room", choices=["free", "expert"], default="free")
    demo.add_argument("--bots", choices=["sensible", "random", "mixed"], default="mixed")
    demo.set_defaults(handler=_demo)
    return parser


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        return args.handler(args)
    except ValueError as error:
        print(f"paiju: {error}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
