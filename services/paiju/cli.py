"""The ``paiju`` command."""

from __future__ import annotations

import argparse
import logging
import os
import sys

from paiju.admin.cli import add_admin_commands


def _demo(args: argparse.Namespace) -> int:
    from paiju.demo import run_table
    from paiju.games.zhajinhua import Room

    room = Room.EXPERT if args.room == "expert" else Room.FREE
    try:
        run_table(players=args.players, hands=args.hands, coins=args.coins, seed=args.seed,
                  room=room, bots=args.bots)
    except KeyboardInterrupt:
        print("\nstopped")
    return 0


def _serve(args: argparse.Namespace) -> int:
    from paiju.common.config import Settings
    from paiju.common.logs import configure_logging
    from paiju.platform import SERVICES
    from paiju.serve import serve
    from paiju.server_processes import serve_processes

    configure_logging(args.log_level, json=not args.text_logs)
    services = list(SERVICES) if args.service == "all" else [args.service]
    if args.bots and args.service != "all":
        raise ValueError("bot tables run only in the all-in-one server (paiju serve --bots N)")
    settings, relay = Settings.from_env(), not args.external_worker
    if args.processes > 1:
        return serve_processes(settings, services, args.processes, bot_tables=args.bots,
                               rooms_per_tier=args.rooms, relay=relay)
    return serve(settings, services, bot_tables=args.bots, rooms_per_tier=args.rooms, relay=relay)


def _bots(args: argparse.Namespace) -> int:
    from paiju.common.config import Settings
    from paiju.common.logs import configure_logging
    from paiju.house_bots import serve_house

    configure_logging(args.log_level, json=not args.text_logs)
    code = serve_house(args.address, Settings.from_env().secret, tables=args.tables, plaintext=args.plaintext)
    # The bots hold nothing to save, and grpc's teardown as the interpreter exits can hang on a
    # connection still being made (a TLS handshake to a door that is going away): a stopped
    # container of bots overran its grace so. The process ends here, its log flushed.
    logging.shutdown()
    os._exit(code)


def _export_hand(args: argparse.Namespace) -> int:
    import json

    from paiju.common.config import Settings
    from paiju.wallet.hand_export import export_hand
    from paiju.wallet.store import Wallet

    wallet = Wallet(Settings.from_env().database_url)
    try:
        document = export_hand(wallet, args.hand_id)
    finally:
        wallet.database.dispose()
    if document is None:
        print(f"paiju hand export: no hand {args.hand_id!r} is kept (never played, or past the retention)",
              file=sys.stderr)
        return 1
    print(json.dumps(document, ensure_ascii=False, indent=1))
    return 0


def _worker(args: argparse.Namespace) -> int:
    from paiju.wallet.celery_app import app

    app.worker_main(["worker", "--beat", "--loglevel", args.loglevel, "--pool", "solo"])
    return 0


def _migrate(args: argparse.Namespace) -> int:
    from paiju.common.config import Settings
    from paiju.wallet.database import Database
    from paiju.wallet.errors import SchemaError
    from paiju.wallet.migrations import current_version, migrate

    settings = Settings.from_env()
    database = Database(settings.database_url)
    try:
        before = current_version(database)
        applied = migrate(database)
        after = current_version(database)
    except SchemaError as error:
        print(f"paiju migrate: {error}", file=sys.stderr)
        return 1
    finally:
        database.dispose()
    where = database.url.render_as_string(hide_password=True)
    if applied:
        print(f"paiju migrate: {where} from schema {before} to {after} (applied {', '.join(map(str, applied))})")
    else:
        print(f"paiju migrate: {where} is at schema {after} already: nothing to do")
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

    serve = commands.add_parser("serve", help="run the services (all in one process by default)")
    serve.add_argument("service", nargs="?", default="all", choices=["all", "wallet", "lobby", "table", "watchdog"])
    serve.add_argument("--bots", type=int, default=0, help="tables of bots in each game: 炸金花 free, 混战 stake10, 炒地皮 yangzhou-fortune10 (all-in-one only)")
    serve.add_argument("--rooms", type=int, default=10, help="rooms per game and tier")
    serve.add_argument("--processes", type=int, default=1,
                       help="serve from this many processes sharing the port, e.g. one per core "
                            "(default 1; above 1 needs REDIS_URL)")
    serve.add_argument("--external-worker", action="store_true",
                       help="leave settlements to `paiju worker` (Celery) instead of relaying them here")
    serve.add_argument("--log-level", default="WARNING", help="root log level (default WARNING)")
    serve.add_argument("--text-logs", action="store_true", help="plain text logs instead of JSON lines")
    serve.set_defaults(handler=_serve)

    bots = commands.add_parser(
        "bots", help="the house's bots as a role of their own: they sign in through ADDRESS (the door) as "
                     "players do and keep people company in each game's first room (a deployment's paiju-bots)")
    bots.add_argument("address", help="the door's address, host:port")
    bots.add_argument("--tables", type=int, default=0,
                      help="tables of bots alone in each game besides (rooms 01…N; the company room is N+1)")
    bots.add_argument("--plaintext", action="store_true",
                      help="plain gRPC to the door (inside the cluster); TLS otherwise, but to loopback")
    bots.add_argument("--log-level", default="INFO", help="root log level (default INFO)")
    bots.add_argument("--text-logs", action="store_true", help="plain text logs instead of JSON lines")
    bots.set_defaults(handler=_bots)

    migrate = commands.add_parser(
        "migrate", help="bring the ledger's schema (DATABASE_URL) to this release's; run once per release "
                        "(a deployment's Job), where the services wait for it (PAIJU_MIGRATE=wait)")
    migrate.set_defaults(handler=_migrate)

    hand = commands.add_parser("hand", help="the kept hands (an operator's look at one)")
    hand_commands = hand.add_subparsers(dest="hand_command", required=True)
    export = hand_commands.add_parser("export", help="one kept hand as JSON: its players, settlement and every "
                                                     "step as the table saw it, every card shown (DATABASE_URL)")
    export.add_argument("hand_id")
    export.set_defaults(handler=_export_hand)

    add_admin_commands(commands)

    worker = commands.add_parser("worker", help="a Celery worker with beat: settlements and the outbox relay")
    worker.add_argument("--loglevel", default="info")
    worker.set_defaults(handler=_worker)
    return parser


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        return args.handler(args)
    except ValueError as error:
        print(f"paiju: {error}", file=sys.stderr)
        return 2
    except ModuleNotFoundError as missing:
        if missing.name is None or missing.name.split(".")[0] == "paiju":
            raise
        # `pip install paiju` is the SDK alone; the server's roles need its extra.
        print(f"paiju {args.command}: {missing.name} is not installed: this is the client's install; "
              "the server needs pip install 'paiju[server]'", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
