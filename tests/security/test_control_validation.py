"""Case 9 of docs/security.md: every control request is validated, and a bad value answers INVALID_ARGUMENT
naming the field (never UNKNOWN, never a silently empty answer), over real gRPC to a `pepper referee serve`."""

from __future__ import annotations

import math

import grpc
import pytest
from attack_harness import Referee
from pepper_proto.v1 import control_pb2

CONTROL = control_pb2.DESCRIPTOR.services_by_name["ControlService"]
SEATS = ["lean"] * 4


def _enum_paths(desc, prefix: str = "") -> list[tuple[str, int]]:
    """Every singular enum field of a request type, nested messages included: (dotted path, an undefined value)."""
    out = []
    for fd in desc.fields:
        if fd.is_repeated:
            continue
        if fd.enum_type is not None:
            out.append((prefix + fd.name, max(v.number for v in fd.enum_type.values) + 1))
        elif fd.message_type is not None:
            out += _enum_paths(fd.message_type, f"{prefix}{fd.name}.")
    return out


ENUM_CASES = [(m.name, path, bad) for m in CONTROL.methods if not m.server_streaming
              for path, value in _enum_paths(m.input_type) for bad in (value, -1)]


def _request(method: str, path: str, value: int):
    req = getattr(control_pb2, CONTROL.methods_by_name[method].input_type.name)()
    if method == "CreateGame":
        req.seats[:] = SEATS
    *parents, leaf = path.split(".")
    m = req
    for p in parents:
        m = getattr(m, p)
    setattr(m, leaf, value)
    return req


@pytest.fixture(scope="module")
def referee(tmp_path_factory):
    with Referee(tmp_path_factory.mktemp("control")) as ref:
        yield ref


def _invalid(ref: Referee, method: str, req, field: str) -> None:
    with pytest.raises(grpc.RpcError) as e:
        getattr(ref.control, method)(req, metadata=ref.md, timeout=10)
    assert e.value.code() == grpc.StatusCode.INVALID_ARGUMENT, (method, field, e.value.code(), e.value.details())
    assert field in e.value.details(), (method, field, e.value.details())


def test_every_enum_of_every_control_request_is_checked():
    assert {(m, p) for m, p, _ in ENUM_CASES} >= {("CreateGame", "policy.on_illegal"), ("ListGames", "status")}


@pytest.mark.parametrize(("method", "path", "value"), ENUM_CASES)
def test_an_undefined_enum_value_names_its_field(referee, method, path, value):
    _invalid(referee, method, _request(method, path, value), path)


RANGE_CASES = [
    ("CreateGame", control_pb2.CreateGameRequest(seats=SEATS, players=9), "players"),
    ("CreateGame", control_pb2.CreateGameRequest(seats=SEATS[:3]), "seats"),
    ("CreateGame", control_pb2.CreateGameRequest(seats=SEATS, first_dealer=4), "first_dealer"),
    ("CreateGame", control_pb2.CreateGameRequest(seats=SEATS, policy=control_pb2.GamePolicy(deadline_ms=0)),
     "policy: deadline_ms"),
    ("CreateGame", control_pb2.CreateGameRequest(seats=SEATS, seat_time_controls=[control_pb2.TimeControl()] * 3),
     "seat_time_controls"),
    ("CreateGame", control_pb2.CreateGameRequest(
        seats=SEATS, seat_time_controls=[control_pb2.TimeControl(deadline_ms=0)] * 4), "seat_time_controls[0].deadline_ms"),
    ("CreateGame", control_pb2.CreateGameRequest(seats=SEATS, game_id="no spaces"), "game id"),
    ("RegisterBot", control_pb2.RegisterBotRequest(name="x" * 65), "bot name"),
    ("RegisterBot", control_pb2.RegisterBotRequest(name="ok", token="short"), "token"),
    ("Drain", control_pb2.DrainRequest(timeout_s=-1), "timeout_s"),
    ("Drain", control_pb2.DrainRequest(timeout_s=math.nan), "timeout_s"),
    ("Drain", control_pb2.DrainRequest(timeout_s=math.inf), "timeout_s"),
]


@pytest.mark.parametrize(("method", "req", "field"), RANGE_CASES, ids=[f"{m}-{f}" for m, _, f in RANGE_CASES])
def test_an_out_of_range_value_names_its_field(referee, method, req, field):
    _invalid(referee, method, req, field)
