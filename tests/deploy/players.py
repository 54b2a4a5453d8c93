"""Players of a deployed Paiju: SDK clients that play whole hands through one address."""

from __future__ import annotations

import secrets
import time
from typing import Any

import grpc

from paiju.client.sdk import PaijuClient, PaijuError, StaleView

PASSWORD = "a long password for the door"
TRANSIENT = frozenset({grpc.StatusCode.UNAVAILABLE, grpc.StatusCode.DEADLINE_EXCEEDED})
"""Refusals that say "try again shortly" (a backend out of reach, a moment of load)."""


class PatientClient(PaijuClient):
    """A player who, as a real client should, asks again for up to a minute when the platform
    answers "try again shortly". Every call here is safe to repeat: Act carries the version it
    was chosen at (a repeat of a move that was taken is refused as stale), and a Register whose
    answer was lost comes back as ALREADY_EXISTS (see :func:`newcomers`)."""

    def _call(self, method, request):  # type: ignore[no-untyped-def]
        deadline = time.monotonic() + 60
        pause = 0.25
        while True:
            try:
                return super()._call(method, request)
            except PaijuError as error:
                if error.status not in TRANSIENT or time.monotonic() > deadline:
                    raise
            time.sleep(pause)
            pause = min(pause * 2, 2.0)


def newcomers(door: str, count: int, tag: str = "", **transport: Any) -> list[PaijuClient]:
    """``count`` new accounts, each signed in through ``door`` (patiently, while the services
    behind it start). ``transport``: as for :class:`PaijuClient` (``tls``, ``root_certificates``)."""
    tag = tag or secrets.token_hex(3)
    players: list[PaijuClient] = []
    for i in range(count):
        try:
            players.append(PatientClient.connect(door, f"door{tag}{i}", PASSWORD, register=True, **transport))
        except PaijuError as error:
            if error.status != grpc.StatusCode.ALREADY_EXISTS:
                raise
            # The registration went through and its answer was lost: the account is ours.
            players.append(PatientClient.connect(door, f"door{tag}{i}", PASSWORD, **transport))
    return players


def zhajinhua_move(legal: list[str], moves_so_far: int) -> str:
    """Look, call a few rounds, then open (or compare) so that the hand ends by a showdown."""
    if moves_so_far >= 6:
        for wanted in ("open", "compare"):
            chosen = next((move for move in legal if move.startswith(wanted)), None)
            if chosen:
                return chosen
    return next((move for move in ("look", "call") if move in legal), legal[0])


def play_zhajinhua_hand(players: list[PaijuClient], room: str, timeout: float = 120) -> dict:
    """Everyone presses start; the hand is played by moves until it is over; the last hand."""
    for player in players:
        player.ready(room)
    by_seat = {player.view(room)["seat"]: player for player in players}
    deadline = time.monotonic() + timeout
    started: str | None = None
    moves = 0
    while time.monotonic() < deadline:
        view = players[0].view(room)
        hand = view["hand"]
        if hand is None:
            if started and view["last_hand"] and view["last_hand"]["hand_id"] == started:
                return view["last_hand"]
            time.sleep(0.2)
            continue
        started = hand["hand_id"]
        to_act = hand["state"].get("to_act")
        if to_act is None:
            time.sleep(0.2)
            continue
        actor = by_seat[hand["seats"][to_act]]
        mine = actor.view(room)
        legal = (mine["hand"] or {}).get("state", {}).get("legal_actions") or []
        if not legal:
            time.sleep(0.1)
            continue
        try:
            actor.act(room, zhajinhua_move(legal, moves), mine["version"])
            moves += 1
        except StaleView:
            continue
    raise AssertionError(f"the hand in {room} did not end within {timeout:.0f} s")


def seat_together(players: list[PaijuClient], game: str, tier: str) -> str:
    """The players seated at a room of ``tier`` where nobody sits yet; its id."""
    for room in players[0].rooms(game, tier):
        if not any(seat.account_id for seat in room.seats):
            for player in players:
                player.sit(room.room_id)
            return room.room_id
    raise AssertionError(f"no empty room of {game} {tier} for {len(players)} players")
