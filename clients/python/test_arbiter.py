"""End-to-end tests of the arbiter.v1 contract from a Python gRPC client.

The test starts the real server binary (``ARBITER_BIN``, default
``target/release/arbiter`` under the repository root) on a free port of
127.0.0.1, generates the Python stubs from ``proto/`` with
``python -m grpc_tools.protoc`` into a temporary directory, calls every RPC
and checks the answers, then stops the server with SIGTERM and checks that it
exits with status 0.

Run from the repository root::

    cargo build --release
    python3 -m venv target/ci-venv
    target/ci-venv/bin/pip install -r clients/python/requirements.txt
    target/ci-venv/bin/python -m pytest clients/python
"""

from __future__ import annotations

import dataclasses
import importlib
import os
import re
import shlex
import signal
import socket
import struct
import subprocess
import sys
import time
import types
import urllib.request
from pathlib import Path

import grpc
import pytest
from google.protobuf import descriptor_pb2, descriptor_pool
from google.rpc import code_pb2, error_details_pb2
from grpc_health.v1 import health_pb2, health_pb2_grpc
from grpc_reflection.v1alpha import reflection_pb2
from grpc_reflection.v1alpha.proto_reflection_descriptor_database import (
    ProtoReflectionDescriptorDatabase,
)
from grpc_status import rpc_status

REPO = Path(__file__).resolve().parents[2]
PROTO_ROOT = REPO / "proto"
SERVICE = "arbiter.v1.RulesService"
STARTUP_TIMEOUT_S = 30.0
SHUTDOWN_TIMEOUT_S = 20.0
RPC_TIMEOUT_S = 10.0
# Never go through an HTTP proxy from the environment: the server is local.
CHANNEL_OPTIONS = [("grpc.enable_http_proxy", 0)]

START_FEN = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1"
KIWIPETE = "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1"
FOOLS_MATE = ["f3", "e5", "g4", "Qh4#"]
# The README's example: the bishop on b5 cannot take e8 through d7.
BLOCKED_GAME = ["e4", "e5", "Ng1-f3", "Ke7", "Bb5", "Ke6", "Bxe8"]
# Knights out and back: the start position stands for the fifth time after
# 16 plies (fivefold repetition ends the game).
KNIGHT_SHUFFLE = ["Nf3", "Nf6", "Ng1", "Ng8"]
# perft(start, 3) split by first move (verified with python-chess).
PERFT3_DIVIDE = {
    "a2a3": 380, "a2a4": 420, "b1a3": 400, "b1c3": 440, "b2b3": 420,
    "b2b4": 421, "c2c3": 420, "c2c4": 441, "d2d3": 539, "d2d4": 560,
    "e2e3": 599, "e2e4": 600, "f2f3": 380, "f2f4": 401, "g1f3": 440,
    "g1h3": 400, "g2g3": 420, "g2g4": 421, "h2h3": 380, "h2h4": 420,
}  # fmt: skip


# --------------------------------------------------------------------------
# Fixtures: generated stubs, the server process, a channel.


@pytest.fixture(scope="session")
def pb(tmp_path_factory: pytest.TempPathFactory) -> types.SimpleNamespace:
    """The arbiter.v1 messages and stubs, generated from proto/ right now."""
    out = tmp_path_factory.mktemp("generated")
    proto = PROTO_ROOT / "arbiter" / "v1" / "arbiter.proto"
    # grpc_tools.protoc adds its bundled well-known types to the include path.
    cmd = [
        sys.executable, "-m", "grpc_tools.protoc",
        f"-I{PROTO_ROOT}",
        f"--python_out={out}",
        f"--pyi_out={out}",
        f"--grpc_python_out={out}",
        str(proto),
    ]  # fmt: skip
    run = subprocess.run(cmd, capture_output=True, text=True, check=False)
    assert run.returncode == 0, f"protoc failed:\n{run.stdout}\n{run.stderr}"
    sys.path.insert(0, str(out))
    try:
        messages = importlib.import_module("arbiter.v1.arbiter_pb2")
        services = importlib.import_module("arbiter.v1.arbiter_pb2_grpc")
    finally:
        sys.path.remove(str(out))
    return types.SimpleNamespace(m=messages, grpc=services)


def free_port() -> int:
    """A port of 127.0.0.1 that nothing listens on right now."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@dataclasses.dataclass
class Server:
    process: subprocess.Popen
    address: str
    log: Path

    def log_text(self) -> str:
        return self.log.read_text(errors="replace")


def server_binary() -> Path:
    binary = Path(os.environ.get("ARBITER_BIN") or "target/release/arbiter")
    if not binary.is_absolute():
        binary = REPO / binary
    if not (binary.is_file() and os.access(binary, os.X_OK)):
        pytest.fail(
            f"no server binary at {binary}: run `cargo build --release` "
            "or set ARBITER_BIN",
            pytrace=False,
        )
    return binary


def wait_serving(server: Server) -> None:
    """Waits, bounded, until the health service says SERVING."""
    deadline = time.monotonic() + STARTUP_TIMEOUT_S
    with grpc.insecure_channel(server.address, options=CHANNEL_OPTIONS) as channel:
        health = health_pb2_grpc.HealthStub(channel)
        while True:
            if server.process.poll() is not None:
                pytest.fail(
                    f"server exited with {server.process.returncode} before serving:\n"
                    + server.log_text(),
                    pytrace=False,
                )
            try:
                reply = health.Check(health_pb2.HealthCheckRequest(service=""), timeout=1.0)
                if reply.status == health_pb2.HealthCheckResponse.SERVING:
                    return
            except grpc.RpcError:
                pass
            if time.monotonic() > deadline:
                pytest.fail(
                    f"server not SERVING after {STARTUP_TIMEOUT_S}s:\n" + server.log_text(),
                    pytrace=False,
                )
            time.sleep(0.05)


def stop(server: Server) -> tuple[int, float]:
    """SIGTERM to the server's PID; its exit status and how long it took."""
    started = time.monotonic()
    os.kill(server.process.pid, signal.SIGTERM)
    try:
        status = server.process.wait(timeout=SHUTDOWN_TIMEOUT_S)
    except subprocess.TimeoutExpired:
        os.kill(server.process.pid, signal.SIGKILL)
        server.process.wait()
        pytest.fail(
            f"server still running {SHUTDOWN_TIMEOUT_S}s after SIGTERM (killed):\n"
            + server.log_text(),
            pytrace=False,
        )
    return status, time.monotonic() - started


@pytest.fixture(scope="session")
def server(tmp_path_factory: pytest.TempPathFactory):
    binary = server_binary()
    # Only this test's settings: no ARBITER_* from the caller's environment.
    env = {k: v for k, v in os.environ.items() if not k.startswith("ARBITER_")}
    env.setdefault("RUST_LOG", "info")
    logs = tmp_path_factory.mktemp("server")
    for attempt in range(3):  # another process may take the port in between
        address = f"127.0.0.1:{free_port()}"
        # A future metrics listener must not bind 0.0.0.0 either.
        env["ARBITER_METRICS_LISTEN"] = f"127.0.0.1:{free_port()}"
        log = logs / f"arbiter-{attempt}.log"
        with log.open("wb") as sink:
            process = subprocess.Popen(
                [str(binary), "serve", "--listen", address],
                stdin=subprocess.DEVNULL,
                stdout=sink,
                stderr=subprocess.STDOUT,
                env=env,
            )
        srv = Server(process, address, log)
        try:
            wait_serving(srv)
            break
        except pytest.fail.Exception:
            if process.poll() is None:
                process.kill()
                process.wait()
                raise
            if "cannot listen" not in srv.log_text() or attempt == 2:
                raise
    yield srv
    if srv.process.poll() is not None:
        pytest.fail(
            f"server died during the tests (status {srv.process.returncode}):\n"
            + srv.log_text(),
            pytrace=False,
        )
    status, took = stop(srv)
    print(f"\narbiter exited with status {status} {took:.2f}s after SIGTERM")
    assert status == 0, f"exit status {status} after SIGTERM:\n{srv.log_text()}"


@pytest.fixture(scope="session")
def channel(server: Server):
    with grpc.insecure_channel(server.address, options=CHANNEL_OPTIONS) as chan:
        grpc.channel_ready_future(chan).result(timeout=RPC_TIMEOUT_S)
        yield chan
    # Closed before the server fixture's teardown sends SIGTERM.


@pytest.fixture
def rules(pb, channel):
    return pb.grpc.RulesServiceStub(channel)


# --------------------------------------------------------------------------
# Helpers.


def sans(plies) -> list[str]:
    return [p.san for p in plies]


def decode_error(err: grpc.RpcError):
    """The google.rpc.Status of a failed call and its BadRequest and ErrorInfo."""
    status = rpc_status.from_call(err)
    assert status is not None, f"no grpc-status-details-bin on {err.code()}: {err.details()}"
    assert status.code == err.code().value[0]
    assert status.message == err.details()
    bad_request, error_info = None, None
    for detail in status.details:
        if detail.Is(error_details_pb2.BadRequest.DESCRIPTOR):
            bad_request = error_details_pb2.BadRequest()
            detail.Unpack(bad_request)
        elif detail.Is(error_details_pb2.ErrorInfo.DESCRIPTOR):
            error_info = error_details_pb2.ErrorInfo()
            detail.Unpack(error_info)
    assert bad_request is not None, f"no BadRequest in {status}"
    assert error_info is not None, f"no ErrorInfo in {status}"
    return status, bad_request, error_info


# --------------------------------------------------------------------------
# ValidateGame.


def test_validate_short_game(pb, rules):
    request = pb.m.ValidateGameRequest(
        moves=["e4", "e5", "Ng1-f3", "Nc6", "Bb5", "a6"], include_fens=True
    )
    reply = rules.ValidateGame(request, timeout=RPC_TIMEOUT_S)

    assert not reply.HasField("illegal_move")
    assert sans(reply.plies) == ["e4", "e5", "Nf3", "Nc6", "Bb5", "a6"]
    assert [p.uci for p in reply.plies] == ["e2e4", "e7e5", "g1f3", "b8c6", "f1b5", "a7a6"]
    # Long algebraic `Ng1-f3` is accepted but is not canonical SAN.
    assert [p.canonical_input for p in reply.plies] == [True, True, False, True, True, True]
    assert reply.plies[0].fen_after == "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq e3 0 1"
    ruy_lopez = "r1bqkbnr/1ppp1ppp/p1n5/1B2p3/4P3/5N2/PPPP1PPP/RNBQK2R w KQkq - 0 4"
    assert reply.plies[-1].fen_after == ruy_lopez

    pos = reply.position
    assert pos.fen == ruy_lopez
    assert pos.turn == pb.m.COLOR_WHITE
    assert not pos.in_check
    assert (pos.halfmove_clock, pos.fullmove_number) == (0, 4)
    legal = {m.uci: m.san for m in pos.legal_moves}
    assert len(legal) == len(pos.legal_moves) == 32
    assert legal["e1g1"] == "O-O"
    assert legal["b5c6"] == "Bxc6"
    assert legal["b5a6"] == "Bxa6"
    assert legal["f3e5"] == "Nxe5"
    assert legal["d2d4"] == "d4"

    out = reply.outcome
    assert out.result == pb.m.GAME_RESULT_ONGOING
    assert out.termination == pb.m.TERMINATION_UNSPECIFIED
    assert list(out.claimable_draws) == []
    assert out.pgn_result == "*"


def test_validate_options(pb, rules):
    moves = ["e2e4", "e7e5", "Ng1-f3"]
    # plies_from: earlier moves are checked, only the newest ply is returned.
    reply = rules.ValidateGame(
        pb.m.ValidateGameRequest(moves=moves, plies_from=2, skip_legal_moves=True),
        timeout=RPC_TIMEOUT_S,
    )
    assert [(p.san, p.uci) for p in reply.plies] == [("Nf3", "g1f3")]
    assert reply.plies[0].fen_after == ""  # include_fens not set
    assert len(reply.position.legal_moves) == 0
    assert reply.position.turn == pb.m.COLOR_BLACK
    # Strict SAN rejects the long algebraic form; exact UCI is fine.
    reply = rules.ValidateGame(
        pb.m.ValidateGameRequest(moves=moves, strict_san=True), timeout=RPC_TIMEOUT_S
    )
    assert sans(reply.plies) == ["e4", "e5"]
    assert reply.illegal_move.index == 2
    assert reply.illegal_move.move == "Ng1-f3"
    assert reply.illegal_move.reason == pb.m.ILLEGAL_MOVE_REASON_NON_CANONICAL
    # UCI only: SAN text is unparseable.
    reply = rules.ValidateGame(
        pb.m.ValidateGameRequest(moves=["e2e4", "e5"], notation=pb.m.NOTATION_UCI),
        timeout=RPC_TIMEOUT_S,
    )
    assert reply.illegal_move.index == 1
    assert reply.illegal_move.reason == pb.m.ILLEGAL_MOVE_REASON_UNPARSEABLE


def test_validate_fools_mate(pb, rules):
    reply = rules.ValidateGame(
        pb.m.ValidateGameRequest(moves=FOOLS_MATE), timeout=RPC_TIMEOUT_S
    )
    assert not reply.HasField("illegal_move")
    assert sans(reply.plies) == FOOLS_MATE
    assert all(p.canonical_input for p in reply.plies)
    assert reply.position.fen == "rnb1kbnr/pppp1ppp/8/4p3/6Pq/5P2/PPPPP2P/RNBQKBNR w KQkq - 1 3"
    assert reply.position.turn == pb.m.COLOR_WHITE
    assert reply.position.in_check
    assert len(reply.position.legal_moves) == 0
    assert reply.outcome.result == pb.m.GAME_RESULT_BLACK_WINS
    assert reply.outcome.termination == pb.m.TERMINATION_CHECKMATE
    assert reply.outcome.pgn_result == "0-1"

    # Without the `#` the move is still read, but it was not canonical.
    reply = rules.ValidateGame(
        pb.m.ValidateGameRequest(moves=FOOLS_MATE[:3] + ["Qh4"]), timeout=RPC_TIMEOUT_S
    )
    assert reply.plies[-1].san == "Qh4#"
    assert not reply.plies[-1].canonical_input
    assert reply.outcome.termination == pb.m.TERMINATION_CHECKMATE

    # Any move after the mate is refused: the game is over.
    reply = rules.ValidateGame(
        pb.m.ValidateGameRequest(moves=FOOLS_MATE + ["Kf2"]), timeout=RPC_TIMEOUT_S
    )
    assert len(reply.plies) == 4
    assert reply.illegal_move.index == 4
    assert reply.illegal_move.reason == pb.m.ILLEGAL_MOVE_REASON_GAME_OVER
    assert reply.outcome.result == pb.m.GAME_RESULT_BLACK_WINS


def test_dead_position_flag_fall_and_move_claims(pb, rules):
    # A locked pawn wall: a drawn, finished game at once.
    wall = "8/4k3/8/1p1p1p1p/pPpPpPpP/P1P1P1P1/8/4K3 w - - 0 1"
    reply = rules.ValidateGame(pb.m.ValidateGameRequest(fen=wall), timeout=RPC_TIMEOUT_S)
    assert reply.outcome.result == pb.m.GAME_RESULT_DRAW
    assert reply.outcome.termination == pb.m.TERMINATION_DEAD_POSITION

    # White's flag falls; black has a bare king, so it is a draw (FIDE 6.9).
    krk = "4k3/8/8/8/8/8/8/R3K3 w - - 0 1"
    request = pb.m.ValidateGameRequest(
        fen=krk, flagged=pb.m.COLOR_WHITE, include_winnability=True
    )
    reply = rules.ValidateGame(request, timeout=RPC_TIMEOUT_S)
    assert reply.outcome.termination == pb.m.TERMINATION_TIMEOUT_VS_UNWINNABLE
    assert reply.outcome.pgn_result == "1/2-1/2"
    assert reply.position.winnability.black.verdict == pb.m.VERDICT_UNWINNABLE
    assert reply.position.winnability.white.verdict == pb.m.VERDICT_WINNABLE
    assert len(reply.position.winnability.white.helpmate) > 0
    # Black's flag: white wins on time.
    request = pb.m.ValidateGameRequest(fen=krk, flagged=pb.m.COLOR_BLACK)
    reply = rules.ValidateGame(request, timeout=RPC_TIMEOUT_S)
    assert reply.outcome.termination == pb.m.TERMINATION_TIMEOUT
    assert reply.outcome.result == pb.m.GAME_RESULT_WHITE_WINS

    # Knights out and back twice: Ng8 would be the start position's third time.
    shuffle = ["Nf3", "Nf6", "Ng1", "Ng8", "Nf3", "Nf6", "Ng1"]
    reply = rules.ValidateGame(pb.m.ValidateGameRequest(moves=shuffle), timeout=RPC_TIMEOUT_S)
    claiming = {
        m.san: list(m.claimable_draws) for m in reply.position.legal_moves if m.claimable_draws
    }
    assert claiming == {"Ng8": [pb.m.CLAIMABLE_DRAW_THREEFOLD_REPETITION]}


def test_clocked_game(pb, rules):
    """A game sent with its clock record: each ply carries its mover's time,
    the position both; a move after the flag fell ends the game on time."""
    from google.protobuf.duration_pb2 import Duration

    def clocked(moves, tag, seconds, pending=0.0):
        times = []
        for s in seconds:
            d = Duration()
            d.FromMilliseconds(round(s * 1000))
            times.append(d)
        clock = pb.m.GameClock(
            time_control=pb.m.TimeControl(tag=tag), move_times=times,
            pending=Duration(seconds=int(pending)),
        )  # fmt: skip
        request = pb.m.ValidateGameRequest(moves=moves, clock=clock, skip_legal_moves=True)
        return rules.ValidateGame(request, timeout=RPC_TIMEOUT_S)

    # 3 minutes + 2 s; the first moves untimed; White thinking for 10 s.
    reply = clocked(["e4", "e5", "Nf3", "Nc6"], "180+2", [0, 0, 5, 12.5], pending=10)
    assert [p.clock.ToMilliseconds() for p in reply.plies] == [182000, 182000, 179000, 171500]
    assert reply.position.clocks.white.ToMilliseconds() == 169000
    assert reply.position.clocks.black.ToMilliseconds() == 171500
    assert reply.outcome.result == pb.m.GAME_RESULT_ONGOING

    # White's Nf3 took more than the 59 s it had: not played; Black wins on time.
    reply = clocked(["e4", "e5", "Nf3"], "60", [1, 2, 59.5])
    assert sans(reply.plies) == ["e4", "e5"]
    assert reply.illegal_move.index == 2
    assert reply.illegal_move.reason == pb.m.ILLEGAL_MOVE_REASON_FLAG_FELL
    assert reply.outcome.termination == pb.m.TERMINATION_TIMEOUT
    assert reply.outcome.result == pb.m.GAME_RESULT_BLACK_WINS
    assert reply.position.clocks.white.ToMilliseconds() == 0

    # A malformed control is INVALID_ARGUMENT naming its field.
    with pytest.raises(grpc.RpcError) as error:
        clocked(["e4"], "40/x", [1])
    assert error.value.code() == grpc.StatusCode.INVALID_ARGUMENT
    _, bad_request, error_info = decode_error(error.value)
    assert [v.field for v in bad_request.field_violations] == ["clock.time_control.tag"]
    assert error_info.reason == "INVALID_TIME_CONTROL"


def test_validate_illegal_move(pb, rules):
    reply = rules.ValidateGame(
        pb.m.ValidateGameRequest(moves=BLOCKED_GAME), timeout=RPC_TIMEOUT_S
    )
    # The legal prefix is kept ...
    assert sans(reply.plies) == ["e4", "e5", "Nf3", "Ke7", "Bb5", "Ke6"]
    # ... the bad move is named precisely ...
    bad = reply.illegal_move
    assert bad.index == 6
    assert bad.move == "Bxe8"
    assert bad.reason == pb.m.ILLEGAL_MOVE_REASON_PATH_BLOCKED
    assert bad.message == "the white bishop on b5 is blocked by the piece on d7"
    # ... and the position is the one before it, with its legal moves.
    assert reply.position.fen == "rnbq1bnr/pppp1ppp/4k3/1B2p3/4P3/5N2/PPPP1PPP/RNBQK2R w KQ - 4 4"
    assert reply.position.halfmove_clock == 4
    assert "O-O" in {m.san for m in reply.position.legal_moves}
    assert reply.outcome.result == pb.m.GAME_RESULT_ONGOING
    assert reply.outcome.pgn_result == "*"


def test_validate_move_limit_is_inclusive(pb, rules):
    # Exactly the default limit of 1024 moves is accepted (and replayed on the
    # blocking pool); the game ends by fivefold repetition after 16 plies.
    reply = rules.ValidateGame(
        pb.m.ValidateGameRequest(moves=KNIGHT_SHUFFLE * 256), timeout=RPC_TIMEOUT_S
    )
    assert len(reply.plies) == 16
    assert reply.illegal_move.index == 16
    assert reply.illegal_move.reason == pb.m.ILLEGAL_MOVE_REASON_GAME_OVER
    assert reply.outcome.result == pb.m.GAME_RESULT_DRAW
    assert reply.outcome.termination == pb.m.TERMINATION_FIVEFOLD_REPETITION
    assert reply.outcome.pgn_result == "1/2-1/2"
    assert reply.position.fen == START_FEN.replace(" 0 1", " 16 9")


# --------------------------------------------------------------------------
# INVALID_ARGUMENT with google.rpc.BadRequest and google.rpc.ErrorInfo.

BAD_REQUESTS = [
    # (rpc, request fields, ErrorInfo.reason, BadRequest field, message part)
    ("ValidateGame", {"fen": "8/8/8/8/8/8/8/8 w - - 0 1"}, "ILLEGAL_POSITION", "fen", "no king"),
    ("ValidateGame", {"fen": "not a fen"}, "INVALID_FEN", "fen", ""),
    ("ValidateGame", {"fen": "8" * 129}, "FEN_TOO_LONG", "fen",
     "fen is 129 bytes, more than the limit of 128"),
    ("ValidateGame", {"moves": ["e4"] * 1025}, "TOO_MANY_MOVES", "moves",
     "1025 moves, more than the limit of 1024"),
    ("ValidateGame", {"notation": 99}, "UNKNOWN_ENUM_VALUE", "notation", "99"),
    ("ValidateGame", {"variant": 99}, "UNKNOWN_ENUM_VALUE", "variant", "99"),
    ("ValidateGame", {"variant": 2, "chess960_position": 960}, "START_POSITION_OUT_OF_RANGE",
     "chess960_position", "960"),
    ("ValidateGame", {"variant": 1, "chess960_position": 4}, "CONFLICTING_FIELDS",
     "chess960_position", "VARIANT_CHESS960"),
    ("ValidateGame", {"variant": 2, "fen": "4k3/8/8/8/8/8/8/RK6 w G - 0 1"}, "ILLEGAL_POSITION",
     "fen", "castling right G"),
    ("ValidateGame", {"variant": 3, "fen": "4k3/8/8/8/8/8/8/4K3[K] w - - 0 1"},
     "ILLEGAL_POSITION", "fen", "a pocket holds a king"),
    ("ValidateGame", {"variant": 4, "include_winnability": True}, "CONFLICTING_FIELDS",
     "include_winnability", "not lichess's variants"),
    ("LegalMoves", {"from_square": "z9"}, "INVALID_SQUARE", "from_square", "z9"),
    ("LegalMoves", {"fen": "8/8/8/8/8/8/8/8 w - - 0 1"}, "ILLEGAL_POSITION", "fen", "king"),
    ("Perft", {"depth": 7}, "DEPTH_TOO_LARGE", "depth", "depth 7 is more than the limit of 6"),
    ("Perft", {"fen": "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR x KQkq - 0 1", "depth": 1},
     "INVALID_FEN", "fen", ""),
]  # fmt: skip


@pytest.mark.parametrize(
    "rpc,fields,reason,field,message",
    BAD_REQUESTS,
    ids=[f"{r[0]}-{r[2]}" for r in BAD_REQUESTS],
)
def test_invalid_argument_details(pb, rules, rpc, fields, reason, field, message):
    request_type = {
        "ValidateGame": pb.m.ValidateGameRequest,
        "LegalMoves": pb.m.LegalMovesRequest,
        "Perft": pb.m.PerftRequest,
    }[rpc]
    with pytest.raises(grpc.RpcError) as caught:
        getattr(rules, rpc)(request_type(**fields), timeout=RPC_TIMEOUT_S)
    err = caught.value
    assert err.code() == grpc.StatusCode.INVALID_ARGUMENT, err.details()
    assert message in err.details()

    status, bad_request, error_info = decode_error(err)
    assert status.code == code_pb2.INVALID_ARGUMENT
    assert [v.field for v in bad_request.field_violations] == [field]
    assert bad_request.field_violations[0].description == err.details()
    assert error_info.reason == reason
    assert error_info.domain == "arbiter.v1"


def test_malformed_message_is_invalid_argument(channel):
    # Field 2 (moves) holding bytes that are not UTF-8: the client's fault,
    # so INVALID_ARGUMENT, never INTERNAL.
    call = channel.unary_unary(f"/{SERVICE}/ValidateGame")
    with pytest.raises(grpc.RpcError) as caught:
        call(b"\x12\x02\xff\xfe", timeout=RPC_TIMEOUT_S)
    err = caught.value
    assert err.code() == grpc.StatusCode.INVALID_ARGUMENT
    assert err.details().startswith("malformed request message")
    _, bad_request, error_info = decode_error(err)
    assert [v.field for v in bad_request.field_violations] == ["moves"]
    assert error_info.reason == "MALFORMED_MESSAGE"


def test_oversized_message_is_resource_exhausted(pb, rules):
    # Over the default --max-message-bytes (4 MiB): RESOURCE_EXHAUSTED, as
    # gRPC's status code list and the README's error model say.
    request = pb.m.ValidateGameRequest(moves=["e4" * 2500] * 1000)  # ~5 MB
    with pytest.raises(grpc.RpcError) as caught:
        rules.ValidateGame(request, timeout=RPC_TIMEOUT_S)
    assert caught.value.code() == grpc.StatusCode.RESOURCE_EXHAUSTED


# --------------------------------------------------------------------------
# ValidateGames (bidirectional stream).


def test_validate_games_stream(pb, rules):
    games = [
        # Longer than the blocking-pool threshold (256 moves) and first: a
        # slow game must not let later answers overtake it.
        ("long", pb.m.ValidateGameRequest(moves=KNIGHT_SHUFFLE * 75)),
        ("short", pb.m.ValidateGameRequest(moves=["e4", "e5", "Nf3"])),
        ("bad-fen", pb.m.ValidateGameRequest(fen="not a fen", moves=["e4"])),
        ("mate", pb.m.ValidateGameRequest(moves=FOOLS_MATE)),
        ("illegal", pb.m.ValidateGameRequest(moves=BLOCKED_GAME)),
        ("no-king", pb.m.ValidateGameRequest(fen="8/8/8/8/8/8/8/8 w - - 0 1")),
        ("", pb.m.ValidateGameRequest(moves=["d4"])),  # an empty id is echoed too
    ]
    # More games than the server reads ahead (16), in a few shapes.
    for i in range(40):
        moves = ["e4", "e5", "Nf3", "Nc6", "Bb5", "a6"][: i % 7]
        games.append((f"g{i:02}", pb.m.ValidateGameRequest(moves=moves)))
    requests = [pb.m.ValidateGamesRequest(id=i, game=g) for i, g in games]
    requests.append(pb.m.ValidateGamesRequest(id="no-game"))  # game unset

    replies = list(rules.ValidateGames(iter(requests), timeout=RPC_TIMEOUT_S))
    assert [r.id for r in replies] == [r.id for r in requests]
    by_id = {r.id: r for r in replies}

    long = by_id["long"]
    assert long.WhichOneof("result") == "game"
    assert len(long.game.plies) == 16
    assert long.game.illegal_move.reason == pb.m.ILLEGAL_MOVE_REASON_GAME_OVER
    assert long.game.outcome.termination == pb.m.TERMINATION_FIVEFOLD_REPETITION

    assert sans(by_id["short"].game.plies) == ["e4", "e5", "Nf3"]
    assert by_id["short"].game.outcome.pgn_result == "*"
    assert by_id["mate"].game.outcome.termination == pb.m.TERMINATION_CHECKMATE
    assert by_id["mate"].game.outcome.pgn_result == "0-1"
    assert by_id["illegal"].game.illegal_move.index == 6
    assert by_id["illegal"].game.illegal_move.reason == pb.m.ILLEGAL_MOVE_REASON_PATH_BLOCKED
    assert sans(by_id[""].game.plies) == ["d4"]

    for gid, reason, field in [
        ("bad-fen", "INVALID_FEN", "game.fen"),
        ("no-king", "ILLEGAL_POSITION", "game.fen"),
        ("no-game", "MISSING_FIELD", "game"),
    ]:
        reply = by_id[gid]
        assert reply.WhichOneof("result") == "error", gid
        assert reply.error.code == "INVALID_ARGUMENT"
        assert reply.error.reason == reason
        assert reply.error.field == field
        assert reply.error.message

    for i in range(40):
        reply = by_id[f"g{i:02}"]
        assert reply.WhichOneof("result") == "game"
        assert len(reply.game.plies) == i % 7


# --------------------------------------------------------------------------
# ValidatePgn (bidirectional stream of PGN text).

PGN_TEXT = (
    "\ufeff[Event \"mate\"]\r\n[White \"M\u00fcller\"]\r\n[Result \"0-1\"]\r\n\r\n"
    "1. f3 {weak} e5 2. g4?? (2. e4 Nc6) Qh4# 0-1\r\n\r\n"
    '[Event "illegal"]\n[Result "*"]\n\n1. e4 e5 (1... Nf6 2. Ke3) 2. Ke3 Nc6 *\n\n'
    '[Event "bad fen"]\n[SetUp "1"]\n[FEN "8/8/8/8/8/8/8/8 w - - 0 1"]\n\n*\n\n'
    '[Event "stalemate called a win"]\n[FEN "k7/8/8/2Q5/8/8/8/2K5 w - - 0 1"]\n'
    '[Result "1-0"]\n\n1. Qb6 1-0\n\n'
    "[Event \"unfinished\"]\n\n1. d4 d5 2. c4"
).encode()


def test_validate_pgn_stream(pb, rules):
    # Chunks of 5 bytes cut lines, tags and the two-byte "\u00fc" anywhere.
    chunks = [pb.m.ValidatePgnRequest(chunk=PGN_TEXT[i : i + 5]) for i in range(0, len(PGN_TEXT), 5)]
    replies = list(rules.ValidatePgn(iter(chunks), timeout=RPC_TIMEOUT_S))
    assert [r.index for r in replies] == [0, 1, 2, 3, 4]
    assert [r.tags[0].value for r in replies] == [
        "mate", "illegal", "bad fen", "stalemate called a win", "unfinished",
    ]  # fmt: skip
    mate, illegal, bad_fen, stalemate, unfinished = replies

    assert mate.line == 1
    assert (mate.tags[1].name, mate.tags[1].value) == ("White", "M\u00fcller")
    assert mate.WhichOneof("result") == "verdict"
    assert mate.verdict.plies == 4
    assert mate.verdict.outcome.termination == pb.m.TERMINATION_CHECKMATE
    assert mate.verdict.result_tag == "0-1" and mate.verdict.result_consistent
    assert not mate.verdict.HasField("illegal_move") and not mate.verdict.variation_errors

    assert illegal.verdict.plies == 2
    assert illegal.verdict.illegal_move.index == 2
    assert illegal.verdict.illegal_move.move == "Ke3"
    assert illegal.verdict.illegal_move.reason == pb.m.ILLEGAL_MOVE_REASON_NO_PIECE
    [side] = illegal.verdict.variation_errors
    assert (list(side.path), side.index, side.move) == ([1, 0], 1, "Ke3")
    assert side.reason == "ILLEGAL_MOVE_REASON_NO_PIECE"

    assert bad_fen.WhichOneof("result") == "error"
    assert (bad_fen.error.code, bad_fen.error.reason, bad_fen.error.field) == (
        "INVALID_ARGUMENT", "INVALID_FEN", "FEN",
    )  # fmt: skip

    assert stalemate.verdict.outcome.termination == pb.m.TERMINATION_STALEMATE
    assert not stalemate.verdict.result_consistent

    assert unfinished.verdict.plies == 3
    assert not unfinished.verdict.HasField("result_tag")
    assert unfinished.verdict.result_consistent

    # The whole text in one chunk gets the same answers.
    whole = list(rules.ValidatePgn(iter([pb.m.ValidatePgnRequest(chunk=PGN_TEXT)]), timeout=RPC_TIMEOUT_S))
    assert whole == replies


# --------------------------------------------------------------------------
# LegalMoves.


def test_legal_moves(pb, rules):
    after_e4_e5 = "rnbqkbnr/pppp1ppp/8/4p3/4P3/8/PPPP1PPP/RNBQKBNR w KQkq e6 0 2"
    reply = rules.LegalMoves(
        pb.m.LegalMovesRequest(moves=["e4", "e5"], from_square="g1"), timeout=RPC_TIMEOUT_S
    )
    assert {(m.uci, m.san) for m in reply.position.legal_moves} == {
        ("g1e2", "Ne2"), ("g1f3", "Nf3"), ("g1h3", "Nh3"),
    }  # fmt: skip
    assert reply.position.fen == after_e4_e5
    assert reply.outcome.result == pb.m.GAME_RESULT_ONGOING
    assert not reply.HasField("illegal_move")

    reply = rules.LegalMoves(pb.m.LegalMovesRequest(moves=["e4", "e5"]), timeout=RPC_TIMEOUT_S)
    assert len(reply.position.legal_moves) == 29

    reply = rules.LegalMoves(pb.m.LegalMovesRequest(fen=KIWIPETE), timeout=RPC_TIMEOUT_S)
    assert len(reply.position.legal_moves) == 48
    reply = rules.LegalMoves(
        pb.m.LegalMovesRequest(fen=KIWIPETE, from_square="e1"), timeout=RPC_TIMEOUT_S
    )
    assert {m.san for m in reply.position.legal_moves} == {"Kd1", "Kf1", "O-O", "O-O-O"}

    # An illegal move among `moves`: the position is the one before it.
    reply = rules.LegalMoves(
        pb.m.LegalMovesRequest(moves=["e4", "e4"], from_square="e7"), timeout=RPC_TIMEOUT_S
    )
    assert reply.illegal_move.index == 1
    assert reply.position.turn == pb.m.COLOR_BLACK
    assert {m.uci for m in reply.position.legal_moves} == {"e7e6", "e7e5"}

    # After mate there is nothing to list.
    reply = rules.LegalMoves(pb.m.LegalMovesRequest(moves=FOOLS_MATE), timeout=RPC_TIMEOUT_S)
    assert len(reply.position.legal_moves) == 0
    assert reply.outcome.termination == pb.m.TERMINATION_CHECKMATE


# --------------------------------------------------------------------------
# Perft.


def test_perft(pb, rules):
    reply = rules.Perft(pb.m.PerftRequest(depth=3), timeout=RPC_TIMEOUT_S)
    assert reply.nodes == 8902
    assert len(reply.divide) == 0

    reply = rules.Perft(pb.m.PerftRequest(depth=3, divide=True), timeout=RPC_TIMEOUT_S)
    assert reply.nodes == 8902
    assert {d.uci: d.nodes for d in reply.divide} == PERFT3_DIVIDE

    reply = rules.Perft(pb.m.PerftRequest(fen=KIWIPETE, depth=3), timeout=RPC_TIMEOUT_S)
    assert reply.nodes == 97862
    reply = rules.Perft(pb.m.PerftRequest(depth=0), timeout=RPC_TIMEOUT_S)
    assert reply.nodes == 1


CHESS960_FEN = "4k3/pppppppp/8/8/8/8/PPPPPPPP/RK4R1 w GA - 0 1"


def test_chess960(pb, rules):
    """A Chess960 game through every RPC: castling read as SAN and as king
    takes rook, written as king takes rook; X-FEN and Shredder-FEN."""
    chess960 = pb.m.VARIANT_CHESS960
    game = pb.m.ValidateGameRequest(
        variant=chess960, fen=CHESS960_FEN, moves=["O-O", "e5", "Rf1e1"], include_fens=True
    )
    reply = rules.ValidateGame(game, timeout=RPC_TIMEOUT_S)
    assert not reply.HasField("illegal_move")
    assert [(p.san, p.uci) for p in reply.plies] == [("O-O", "b1g1"), ("e5", "e7e5"), ("Rfe1", "f1e1")]
    assert reply.plies[0].fen_after == "4k3/pppppppp/8/8/8/8/PPPPPPPP/R4RK1 b - - 1 1"

    reply = rules.ValidateGame(
        pb.m.ValidateGameRequest(variant=chess960, fen=CHESS960_FEN, moves=["b1a1"], shredder_fen=True),
        timeout=RPC_TIMEOUT_S,
    )
    assert (reply.plies[0].san, reply.plies[0].uci) == ("O-O-O", "b1a1")
    assert reply.position.fen == "4k3/pppppppp/8/8/8/8/PPPPPPPP/2KR2R1 b - - 1 1"

    # The standard array by number: castling comes out as king takes rook.
    moves = ["e4", "e5", "Nf3", "Nc6", "Bc4", "Bc5", "O-O"]
    reply = rules.ValidateGame(
        pb.m.ValidateGameRequest(variant=chess960, chess960_position=518, moves=moves),
        timeout=RPC_TIMEOUT_S,
    )
    assert (reply.plies[-1].san, reply.plies[-1].uci) == ("O-O", "e1h1")

    # Castling into check is refused with its reason.
    reply = rules.ValidateGame(
        pb.m.ValidateGameRequest(
            variant=chess960, fen="2r1k3/8/8/8/8/8/8/RK4R1 w GA - 0 1", moves=["O-O-O"]
        ),
        timeout=RPC_TIMEOUT_S,
    )
    assert reply.illegal_move.reason == pb.m.ILLEGAL_MOVE_REASON_CASTLING_INTO_CHECK

    stream = [pb.m.ValidateGamesRequest(id="960", game=game)]
    [answer] = list(rules.ValidateGames(iter(stream), timeout=RPC_TIMEOUT_S))
    assert answer.id == "960" and answer.game.plies[0].uci == "b1g1"

    reply = rules.LegalMoves(
        pb.m.LegalMovesRequest(variant=chess960, fen=CHESS960_FEN, from_square="b1", shredder_fen=True),
        timeout=RPC_TIMEOUT_S,
    )
    assert reply.position.fen == CHESS960_FEN
    assert sorted((m.uci, m.san) for m in reply.position.legal_moves) == [
        ("b1a1", "O-O-O"), ("b1c1", "Kc1"), ("b1g1", "O-O")
    ]

    reply = rules.Perft(
        pb.m.PerftRequest(variant=chess960, fen=CHESS960_FEN, depth=1, divide=True),
        timeout=RPC_TIMEOUT_S,
    )
    assert {"b1a1", "b1g1"} <= {d.uci for d in reply.divide}
    reply = rules.Perft(
        pb.m.PerftRequest(variant=chess960, chess960_position=518, depth=3), timeout=RPC_TIMEOUT_S
    )
    assert reply.nodes == 8902


def test_variants(pb, rules):
    """Lichess's variants: a crazyhouse game with a drop, a drop mate among
    the legal moves, and perft of racing kings and horde from their starts."""
    crazyhouse = pb.m.VARIANT_CRAZYHOUSE
    # Knights traded, Black drops White's knight with check, White takes it.
    moves = ["e4", "e5", "Nf3", "Nc6", "Nxe5", "Nxe5", "d4", "N@f3+", "gxf3"]
    reply = rules.ValidateGame(
        pb.m.ValidateGameRequest(variant=crazyhouse, moves=moves), timeout=RPC_TIMEOUT_S
    )
    assert not reply.HasField("illegal_move")
    assert [(p.san, p.uci) for p in reply.plies[-2:]] == [("N@f3+", "N@f3"), ("gxf3", "g2f3")]
    # Both captured pieces are in White's pocket.
    fen = "r1bqkbnr/pppp1ppp/8/4n3/3PP3/5P2/PPP2P1P/RNBQKB1R[NP] b KQkq - 0 5"
    assert reply.position.fen == fen
    assert reply.outcome.result == pb.m.GAME_RESULT_ONGOING

    # The knight in hand dropped on an occupied square.
    reply = rules.ValidateGame(
        pb.m.ValidateGameRequest(variant=crazyhouse, moves=moves[:7] + ["N@e4"]),
        timeout=RPC_TIMEOUT_S,
    )
    assert reply.illegal_move.index == 7
    assert reply.illegal_move.reason == pb.m.ILLEGAL_MOVE_REASON_INVALID_DROP

    # A rook in hand: 59 drops (one of them mates) and 5 king moves.
    fen = "6k1/5ppp/8/8/8/8/8/4K3[R] w - - 0 1"
    reply = rules.LegalMoves(
        pb.m.LegalMovesRequest(variant=crazyhouse, fen=fen), timeout=RPC_TIMEOUT_S
    )
    sans = [m.san for m in reply.position.legal_moves]
    assert len(sans) == 64 and sum(san.startswith("R@") for san in sans) == 59
    assert "R@e8#" in sans
    reply = rules.ValidateGame(
        pb.m.ValidateGameRequest(variant=crazyhouse, fen=fen, moves=["R@e8"]),
        timeout=RPC_TIMEOUT_S,
    )
    assert reply.plies[0].san == "R@e8#"
    assert reply.outcome.result == pb.m.GAME_RESULT_WHITE_WINS
    assert reply.outcome.termination == pb.m.TERMINATION_CHECKMATE

    # perft from each start (scalachess's racingkings.perft and horde.perft).
    for variant, depth, nodes in [
        (pb.m.VARIANT_RACING_KINGS, 3, 11264),
        (pb.m.VARIANT_HORDE, 3, 1274),
    ]:
        reply = rules.Perft(pb.m.PerftRequest(variant=variant, depth=depth), timeout=RPC_TIMEOUT_S)
        assert reply.nodes == nodes, pb.m.Variant.Name(variant)


def test_perft_deadline(pb, rules):
    # Kiwipete to depth 6 is about 8e9 leaves: far more than 300 ms.
    started = time.monotonic()
    with pytest.raises(grpc.RpcError) as caught:
        rules.Perft(pb.m.PerftRequest(fen=KIWIPETE, depth=6), timeout=0.3)
    assert caught.value.code() == grpc.StatusCode.DEADLINE_EXCEEDED
    assert time.monotonic() - started < 5
    # The server is free again at once.
    started = time.monotonic()
    assert rules.Perft(pb.m.PerftRequest(depth=2), timeout=RPC_TIMEOUT_S).nodes == 400
    assert time.monotonic() - started < 2


# --------------------------------------------------------------------------
# Health, reflection, gRPC-Web.


def test_health(channel):
    health = health_pb2_grpc.HealthStub(channel)
    for service in ["", SERVICE]:
        reply = health.Check(health_pb2.HealthCheckRequest(service=service), timeout=RPC_TIMEOUT_S)
        assert reply.status == health_pb2.HealthCheckResponse.SERVING, service
    with pytest.raises(grpc.RpcError) as caught:
        health.Check(health_pb2.HealthCheckRequest(service="no.such.Service"), timeout=RPC_TIMEOUT_S)
    assert caught.value.code() == grpc.StatusCode.NOT_FOUND


def test_reflection_v1alpha(channel):
    db = ProtoReflectionDescriptorDatabase(channel)
    services = set(db.get_services())
    assert SERVICE in services
    assert "grpc.health.v1.Health" in services

    pool = descriptor_pool.DescriptorPool(db)
    service = pool.FindServiceByName(SERVICE)
    assert set(service.methods_by_name) == {
        "ValidateGame", "ValidateGames", "LegalMoves", "Perft", "ValidatePgn",
    }  # fmt: skip
    stream = service.methods_by_name["ValidateGames"]
    assert stream.client_streaming and stream.server_streaming
    for method in service.methods:
        assert method.GetOptions().idempotency_level == descriptor_pb2.MethodOptions.NO_SIDE_EFFECTS
    # The error detail types are published too, so that generic clients
    # (grpcurl) can decode them.
    for name in ["google.rpc.BadRequest", "google.rpc.ErrorInfo"]:
        assert pool.FindMessageTypeByName(name).full_name == name


def test_reflection_v1(channel):
    # grpcio-reflection's client speaks v1alpha only; v1 has the same
    # messages on the wire under another service name.
    call = channel.stream_stream(
        "/grpc.reflection.v1.ServerReflection/ServerReflectionInfo",
        request_serializer=reflection_pb2.ServerReflectionRequest.SerializeToString,
        response_deserializer=reflection_pb2.ServerReflectionResponse.FromString,
    )
    request = reflection_pb2.ServerReflectionRequest(list_services="")
    (reply,) = list(call(iter([request]), timeout=RPC_TIMEOUT_S))
    names = {s.name for s in reply.list_services_response.service}
    assert {SERVICE, "grpc.health.v1.Health", "grpc.reflection.v1.ServerReflection"} <= names


def test_grpc_web(pb, server):
    # HTTP/1.1 POST of one gRPC-Web frame, as a browser client sends it.
    message = pb.m.PerftRequest(depth=2).SerializeToString()
    body = b"\x00" + struct.pack(">I", len(message)) + message
    request = urllib.request.Request(
        f"http://{server.address}/{SERVICE}/Perft",
        data=body,
        headers={"content-type": "application/grpc-web+proto", "x-grpc-web": "1"},
    )
    opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))
    with opener.open(request, timeout=RPC_TIMEOUT_S) as response:
        assert response.headers["content-type"].startswith("application/grpc-web")
        payload = response.read()
    frames = []
    while payload:
        flag, length = payload[0], struct.unpack(">I", payload[1:5])[0]
        frames.append((flag, payload[5 : 5 + length]))
        payload = payload[5 + length :]
    data = [f for flag, f in frames if flag & 0x80 == 0]
    trailers = b"".join(f for flag, f in frames if flag & 0x80).decode()
    assert len(data) == 1
    assert pb.m.PerftResponse.FromString(data[0]).nodes == 400
    assert "grpc-status:0" in trailers.replace(" ", "")


# --------------------------------------------------------------------------
# The README's Python example, as a reader copies it.


def readme_python_example() -> tuple[str, str]:
    """The shell block and the script of README.md's "From Python" example."""
    section = (REPO / "README.md").read_text().split("From Python", 1)[1]
    shell = re.search(r"```sh\n(.*?)```", section, re.S)
    script = re.search(r"```python\n(.*?)```", section, re.S)
    assert shell and script, "README.md has no Python example"
    return shell.group(1), script.group(1)


def expected_output(script: str) -> list[str]:
    """What the script says it prints: a print's trailing `# comment`, or a
    comment line right after a print."""
    expected, after_print = [], False
    for line in script.splitlines():
        code, _, comment = line.partition("  # ")
        if "print(" in code and comment:
            expected.append(comment.strip())
        elif line.strip().startswith("# ") and after_print:
            expected.append(line.strip()[2:])
        after_print = "print(" in line or (after_print and line.strip().startswith("#"))
    return expected


def test_readme_python_example(server, tmp_path):
    """README.md's example runs as written (stubs from its protoc command,
    the server's address for localhost:50051) and prints what it says."""
    shell, script = readme_python_example()
    generated = tmp_path / "generated"
    # The shell block's commands, joined at their backslashes; the packages
    # are installed already, and the stubs go to a scratch folder.
    for command in shell.replace("\\\n", " ").splitlines():
        argv = shlex.split(command.replace("clients/python/generated", str(generated)))
        if not argv or argv[:2] == ["pip", "install"]:
            continue
        if argv[0] == "python":
            argv[0] = sys.executable
        run = subprocess.run(argv, cwd=REPO, capture_output=True, text=True, check=False)
        assert run.returncode == 0, f"{command}:\n{run.stdout}\n{run.stderr}"
    example = tmp_path / "example.py"
    example.write_text(script.replace("localhost:50051", server.address))
    env = {**os.environ, "PYTHONPATH": str(generated), "NO_PROXY": "*"}
    run = subprocess.run(
        [sys.executable, str(example)], capture_output=True, text=True, env=env, check=False
    )
    assert run.returncode == 0, run.stderr
    expected = expected_output(script)
    assert expected, "the example says nothing about its output"
    assert run.stdout.splitlines() == expected
