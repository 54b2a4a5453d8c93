"""``paiju admin``: an operator's commands. ``token`` signs an operator's token with the
``PAIJU_SECRET`` of the environment (whoever holds the secret is an operator); every other verb
is one call of ``paiju.v1.AdminService`` at a running server (``--address``), with the token of
``--token`` or ``PAIJU_ADMIN_TOKEN``, and prints its answer as JSON."""

from __future__ import annotations

import argparse
import json
import os
import sys
import uuid
from collections.abc import Callable
from typing import Any

DEFAULT_ADDRESS = "127.0.0.1:50051"
DEFAULT_TTL_SECONDS = 3600


def _token(args: argparse.Namespace) -> int:
    from paiju.common.auth import MIN_SECRET_BYTES, Role, TokenSigner

    secret = os.environ.get("PAIJU_SECRET", "")
    if len(secret.encode()) < MIN_SECRET_BYTES:
        print(f"paiju admin token: set PAIJU_SECRET to the servers' secret (at least {MIN_SECRET_BYTES} bytes)",
              file=sys.stderr)
        return 2
    if not args.operator.strip():
        raise ValueError("an operator token names its operator (--operator NAME)")
    print(TokenSigner(secret.encode()).issue(f"operator:{args.operator}", args.operator, args.ttl, Role.OPERATOR))
    return 0


def _call(rpc: str, request: Callable[[argparse.Namespace], Any]) -> Callable[[argparse.Namespace], int]:
    """A handler making the one Admin call ``rpc`` with the request the arguments make."""
    def handler(args: argparse.Namespace) -> int:
        import grpc
        from google.protobuf.json_format import MessageToDict

        from paiju.proto.v1 import admin_pb2_grpc
        from paiju.rpc.channels import is_loopback, open_channel
        from paiju.rpc.interceptor import bearer_metadata

        token = args.token or os.environ.get("PAIJU_ADMIN_TOKEN", "")
        if not token:
            print("paiju admin: give an operator token: --token or PAIJU_ADMIN_TOKEN (paiju admin token)",
                  file=sys.stderr)
            return 2
        credentials = None if args.plaintext or is_loopback(args.address) else grpc.ssl_channel_credentials()
        with open_channel(args.address, credentials=credentials) as channel:
            try:
                answer = getattr(admin_pb2_grpc.AdminServiceStub(channel), rpc)(
                    request(args), metadata=bearer_metadata(token), timeout=args.timeout)
            except grpc.RpcError as error:
                print(f"paiju admin: {error.code().name}: {error.details()}", file=sys.stderr)
                return 1
        document = MessageToDict(answer, preserving_proto_field_name=True, always_print_fields_with_no_presence=True)
        for embedded in ("record_json",):  # a JSON document inside the answer is printed as JSON
            if embedded in document:
                document[embedded] = json.loads(document[embedded])
        print(json.dumps(document, ensure_ascii=False, indent=1))
        return 0

    return handler


def add_admin_commands(commands: Any) -> None:
    """``paiju admin …`` under the ``paiju`` command's subcommands."""
    from paiju.proto.v1 import admin_pb2 as pb

    admin = commands.add_parser("admin", help="an operator's tools: tokens, players, coins, the outbox, stuck "
                                              "tables, hands, the audit log (see README: On a bad night)")
    verbs = admin.add_subparsers(dest="admin_command", required=True)

    token = verbs.add_parser("token", help="print an operator token signed with PAIJU_SECRET")
    token.add_argument("--operator", required=True, help="who you are: written to the audit log")
    token.add_argument("--ttl", type=int, default=DEFAULT_TTL_SECONDS, help="seconds it is valid (default 3600)")
    token.set_defaults(handler=_token)

    def verb(name: str, help_text: str, rpc: str, request: Callable[[argparse.Namespace], Any],
             reason: bool = False) -> argparse.ArgumentParser:
        parser = verbs.add_parser(name, help=help_text)
        parser.add_argument("--address", default=os.environ.get("PAIJU_ADMIN_ADDRESS", DEFAULT_ADDRESS),
                            help=f"the wallet's server (PAIJU_ADMIN_ADDRESS, default {DEFAULT_ADDRESS})")
        parser.add_argument("--token", default="", help="an operator token (default PAIJU_ADMIN_TOKEN)")
        parser.add_argument("--plaintext", action="store_true", help="plain gRPC even to a remote address")
        parser.add_argument("--timeout", type=float, default=10.0, help="seconds to wait for the answer")
        if reason:
            parser.add_argument("--reason", required=True, help="why: written to the audit log")
        parser.set_defaults(handler=_call(rpc, request))
        return parser

    find = verb("find", "a player's account: coins, held coins, suspended or not, table", "FindPlayer",
                lambda a: pb.FindPlayerRequest(username=a.username or "", account_id=a.account or ""))
    named = find.add_mutually_exclusive_group(required=True)
    named.add_argument("--username")
    named.add_argument("--account", help="the account id")
    for name, rpc, what, account_request in (
            ("suspend", "SuspendAccount", "no login, no seat", pb.SuspendAccountRequest),
            ("restore", "RestoreAccount", "lift a suspension", pb.RestoreAccountRequest)):
        verb(name, f"{name} an account ({what})", rpc,
             lambda a, make=account_request: make(account_id=a.account, reason=a.reason), reason=True
             ).add_argument("account", help="the account id")
    adjust = verb("adjust", "give (or, negative, take) coins against the house", "AdjustCoins",
                  lambda a: pb.AdjustCoinsRequest(account_id=a.account, amount=a.amount, reason=a.reason,
                                                  request_id=a.request_id or uuid.uuid4().hex), reason=True)
    adjust.add_argument("account", help="the account id")
    adjust.add_argument("amount", type=int, help="coins: positive gives, negative takes")
    adjust.add_argument("--request-id", help="repeat a lost call with the same id: it is made once (default: new)")
    outbox = verb("outbox", "the settlements waiting in the outbox, of every table", "ListOutbox",
                  lambda a: pb.ListOutboxRequest(limit=a.limit))
    outbox.add_argument("--limit", type=int, default=0)
    for name, rpc, what, entry_request in (
            ("retry", "RetrySettlement", "apply one pending outbox entry now", pb.RetrySettlementRequest),
            ("void", "VoidSettlement", "drop one pending entry unapplied; its hand's holds go back",
             pb.VoidSettlementRequest)):
        entry = verb(name, what, rpc, lambda a, make=entry_request: make(table_id=a.table_id, key=a.key,
                                                                         reason=a.reason), reason=True)
        entry.add_argument("table_id")
        entry.add_argument("key", help="the entry's key, e.g. settle:<hand_id> (paiju admin outbox)")
    end = verb("end-table", "end a stuck table: its hand in play voided (holds back), its seats cleared",
               "EndTable", lambda a: pb.EndTableRequest(table_id=a.table_id, reason=a.reason), reason=True)
    end.add_argument("table_id")
    hand = verb("hand", "one kept hand's whole record", "GetHandRecord",
                lambda a: pb.GetHandRecordRequest(hand_id=a.hand_id))
    hand.add_argument("hand_id")
    audit = verb("audit", "the audit log, newest first", "ListAuditLog",
                 lambda a: pb.ListAuditLogRequest(limit=a.limit, before_id=a.before))
    audit.add_argument("--limit", type=int, default=0)
    audit.add_argument("--before", type=int, default=0, help="only entries older than this id")
