"""The Wallet's hand-history calls (``Hands``, ``ReplayHand``) over :mod:`paiju.wallet.hand_history`:
a player's kept hands, and one of them replayed as that player saw it."""

from __future__ import annotations

import json

import grpc
from google.protobuf.timestamp_pb2 import Timestamp

from paiju.common.typed_views import game_view
from paiju.games.replays import replay_start
from paiju.proto.v1 import views_pb2, wallet_pb2
from paiju.quoting import quoted
from paiju.rpc.errors import abort
from paiju.wallet.hand_history import HandRecord
from paiju.wallet.store import Wallet

HANDS_DEFAULT = 20
HANDS_MAX = 100


def hands(wallet: Wallet, account: int, request: wallet_pb2.HandsRequest,
          context: grpc.ServicerContext) -> wallet_pb2.HandsResponse:
    if not 0 <= request.limit <= HANDS_MAX:
        abort(context, grpc.StatusCode.INVALID_ARGUMENT,
              f"a page of hands has 1 to {HANDS_MAX} (0 for {HANDS_DEFAULT}), not {request.limit}",
              error_code="invalid_argument")
    limit = request.limit or HANDS_DEFAULT
    before = None
    if request.page_token:
        # The token is the last hand of the previous page: one the caller played, or refused.
        last = _kept_for(wallet, account, request.page_token)
        if last is None:
            abort(context, grpc.StatusCode.INVALID_ARGUMENT, "the page token is not a hand of yours",
                  error_code="bad_page_token")
        before = (last[0].ended_at, last[0].hand_id)
    found = wallet.hands_of(account, limit + 1, before)
    page = found[:limit]
    reply = wallet_pb2.HandsResponse(hands=[
        wallet_pb2.PlayedHand(hand_id=hand.hand_id, game=hand.game, table_id=hand.table_id,
                              ended_at=_stamp(hand.ended_at), seat=hand.seat, net=hand.net)
        for hand in page
    ])
    if len(found) > limit:
        reply.next_page_token = page[-1].hand_id
    return reply


def replay_hand(wallet: Wallet, account: int, request: wallet_pb2.ReplayHandRequest,
                context: grpc.ServicerContext) -> wallet_pb2.ReplayHandResponse:
    if not request.hand_id:
        abort(context, grpc.StatusCode.INVALID_ARGUMENT, "hand_id is empty", error_code="invalid_argument")
    mine = _kept_for(wallet, account, request.hand_id)
    if mine is None:
        # A hand of others is as unknown as one never played: its existence is not the caller's.
        abort(context, grpc.StatusCode.NOT_FOUND,
              f"no hand {quoted(request.hand_id)} of yours is kept (hands are kept for a while, then forgotten)",
              error_code="unknown_hand")
    kept, seat = mine
    steps = replay_start(kept.game, kept.record["start"], seat)
    as_json = request.view_format == views_pb2.VIEW_FORMAT_JSON
    return wallet_pb2.ReplayHandResponse(
        hand_id=kept.hand_id, game=kept.game, seat=seat, names=list(kept.record.get("names", [])),
        steps=[
            wallet_pb2.ReplayStep(seat=-1 if step["move"] is None or step["move"][0] < 0 else step["move"][0],
                                  move="" if step["move"] is None else step["move"][1],
                                  **_step_view(step["view"], as_json))
            for step in steps
        ],
    )


def _step_view(view: dict, as_json: bool) -> dict:
    """A replayed step's view in the form the caller asked for (typed unless JSON)."""
    if as_json:
        return {"view_json": json.dumps(view, separators=(",", ":"), ensure_ascii=False)}
    return {"state": game_view(view)}


def _kept_for(wallet: Wallet, account: int, hand_id: str) -> tuple[HandRecord, int] | None:
    """The kept hand ``hand_id`` and ``account``'s seat in it, or None when it is not theirs."""
    kept = wallet.hand_record(hand_id) if 0 < len(hand_id) <= 64 else None
    accounts = [int(a) for a in kept.record["accounts"]] if kept is not None else []
    if kept is None or account not in accounts:
        return None
    return kept, accounts.index(account)


def _stamp(moment) -> Timestamp:  # type: ignore[no-untyped-def]
    stamp = Timestamp()
    stamp.FromDatetime(moment)
    return stamp
