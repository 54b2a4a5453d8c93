"""The contracts: the committed stubs are what the generator makes now, and everything in the
.proto files is documented."""

from __future__ import annotations

import importlib
import importlib.util
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType

import pytest
from google.protobuf import descriptor_pb2

from tests.patience import START_SECONDS

REPO_ROOT = Path(__file__).resolve().parents[2]
GENERATOR = REPO_ROOT / "scripts" / "gen_protos.py"
CONTRACTS = ("admin", "common", "lobby", "table", "wallet", "watchdog")


@pytest.fixture(scope="module")
def gen_protos() -> ModuleType:
    spec = importlib.util.spec_from_file_location("gen_protos", GENERATOR)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_committed_stubs_are_what_the_generator_makes_now(
    gen_protos: ModuleType, tmp_path: Path
) -> None:
    result = subprocess.run(
        [sys.executable, str(GENERATOR), "--out", str(tmp_path)],
        capture_output=True,
        text=True,
        timeout=START_SECONDS,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    fresh = gen_protos.existing_files(tmp_path)
    committed = gen_protos.existing_files(gen_protos.DEFAULT_OUT)
    assert {f"v1/{name}_pb2_grpc.py" for name in CONTRACTS} <= set(fresh)
    stale = gen_protos.stale_files(fresh, committed)
    assert not stale, (
        f"stubs out of date: {stale}; run `.venv/bin/python scripts/gen_protos.py` and commit"
    )


def test_the_check_mode_notices_a_stale_stub(gen_protos: ModuleType, tmp_path: Path) -> None:
    gen_protos.write_package(gen_protos.generated_files(), tmp_path)
    assert gen_protos.main(["--check", "--out", str(tmp_path)]) == 0
    stub = tmp_path / "v1" / "table_pb2.py"
    stub.write_text(stub.read_text() + "\n# edited by hand\n")
    (tmp_path / "v1" / "removed_pb2.py").write_text("# a stub whose proto is gone\n")
    assert gen_protos.stale_files(
        gen_protos.generated_files(), gen_protos.existing_files(tmp_path)
    ) == [
        "v1/removed_pb2.py",
        "v1/table_pb2.py",
    ]
    assert gen_protos.main(["--check", "--out", str(tmp_path)]) == 1


def test_protoc_imports_are_rewritten_to_the_stub_package(gen_protos: ModuleType) -> None:
    rewritten = gen_protos.rewrite_imports("from paiju.v1 import common_pb2 as c\n", "x_pb2.py")
    assert "from paiju.proto.v1 import common_pb2 as c" in rewritten
    with pytest.raises(gen_protos.GenerationError, match="unexpected import"):
        gen_protos.rewrite_imports("import paiju.v1.common_pb2\n", "x_pb2.py")


def test_the_stubs_import_as_paiju_proto_with_the_contract_file_names() -> None:
    for name in CONTRACTS:
        messages = importlib.import_module(f"paiju.proto.v1.{name}_pb2")
        importlib.import_module(f"paiju.proto.v1.{name}_pb2_grpc")
        assert messages.DESCRIPTOR.name == f"paiju/v1/{name}.proto"
        assert messages.DESCRIPTOR.package == "paiju.v1"


# Field numbers of descriptor.proto, to walk SourceCodeInfo paths.
MESSAGE_TYPE, ENUM_TYPE, SERVICE = 4, 5, 6
FIELD, NESTED_TYPE, NESTED_ENUM, ONEOF = 2, 3, 4, 8
ENUM_VALUE, METHOD = 2, 2


def described_elements(
    file: descriptor_pb2.FileDescriptorProto,
) -> Iterator[tuple[tuple[int, ...], str]]:
    """Every message, field, oneof, enum, enum value, service and method, with its source path."""

    def message(
        path: tuple[int, ...], proto: descriptor_pb2.DescriptorProto, prefix: str
    ) -> Iterator[tuple[tuple[int, ...], str]]:
        name = f"{prefix}{proto.name}"
        yield path, name
        for index, field in enumerate(proto.field):
            yield (*path, FIELD, index), f"{name}.{field.name}"
        for index, oneof in enumerate(proto.oneof_decl):
            if not any(
                f.proto3_optional
                for f in proto.field
                if f.HasField("oneof_index") and f.oneof_index == index
            ):
                yield (*path, ONEOF, index), f"{name}.{oneof.name}"
        for index, nested in enumerate(proto.nested_type):
            yield from message((*path, NESTED_TYPE, index), nested, f"{name}.")
        for index, nested_enum in enumerate(proto.enum_type):
            yield from enum((*path, NESTED_ENUM, index), nested_enum, f"{name}.")

    def enum(
        path: tuple[int, ...], proto: descriptor_pb2.EnumDescriptorProto, prefix: str
    ) -> Iterator[tuple[tuple[int, ...], str]]:
        yield path, f"{prefix}{proto.name}"
        for index, value in enumerate(proto.value):
            yield (*path, ENUM_VALUE, index), f"{prefix}{proto.name}.{value.name}"

    for index, proto in enumerate(file.message_type):
        yield from message((MESSAGE_TYPE, index), proto, "")
    for index, proto in enumerate(file.enum_type):
        yield from enum((ENUM_TYPE, index), proto, "")
    for index, service in enumerate(file.service):
        yield (SERVICE, index), service.name
        for method_index, method in enumerate(service.method):
            yield (SERVICE, index, METHOD, method_index), f"{service.name}.{method.name}"


def test_every_message_field_enum_service_and_rpc_is_documented(tmp_path: Path) -> None:
    from importlib import resources

    from grpc_tools import protoc

    descriptor_set = tmp_path / "contracts.pb"
    status = protoc.main(
        [
            "grpc_tools.protoc",
            f"--proto_path={REPO_ROOT / 'protos'}",
            f"--proto_path={resources.files('grpc_tools') / '_proto'}",
            "--include_source_info",
            f"--descriptor_set_out={descriptor_set}",
            *(f"paiju/v1/{name}.proto" for name in CONTRACTS),
        ]
    )
    assert status == 0
    files = descriptor_pb2.FileDescriptorSet.FromString(descriptor_set.read_bytes()).file
    assert sorted(file.name for file in files) == [f"paiju/v1/{name}.proto" for name in CONTRACTS]
    undocumented = []
    for file in files:
        comments = {
            tuple(location.path): location.leading_comments
            for location in file.source_code_info.location
        }
        undocumented += [
            f"{file.name}: {name}"
            for path, name in described_elements(file)
            if not comments.get(path, "").strip()
        ]
    assert undocumented == []


def test_the_rpcs_asked_for_exist() -> None:
    from paiju.proto.v1 import lobby_pb2, table_pb2, wallet_pb2, watchdog_pb2

    def methods(module: ModuleType, service: str) -> set[str]:
        return set(module.DESCRIPTOR.services_by_name[service].methods_by_name)

    assert {"Register", "Login", "GetBalance", "History", "Leaderboard", "Level"} <= methods(
        wallet_pb2, "WalletService"
    )
    assert {"ListRooms", "WatchRooms", "Sit", "Stand", "Ready", "QuickMatch"} <= methods(
        lobby_pb2, "LobbyService"
    )
    assert methods(table_pb2, "TableService") == {"GetView", "Act", "CheckAction", "Watch", "Play"}
    play = table_pb2.DESCRIPTOR.services_by_name["TableService"].methods_by_name["Play"]
    assert play.client_streaming and play.server_streaming
    assert [f.name for f in play.input_type.fields] == ["open", "move", "ready"]
    answer = play.output_type.fields_by_name["answer"].message_type
    assert [f.name for f in answer.oneofs_by_name["outcome"].fields] == ["accepted", "refused", "ready"]
    assert {"ListDeadlines", "ReportPresence", "GetPresence"} <= methods(watchdog_pb2, "WatchdogService")
    # A room is its table's record, so the table owns every deadline, the ready kick included.
    assert {"ExpireDeadline", "MarkDisconnected"} <= methods(table_pb2, "TableInternalService")
    assert "LobbyInternal" not in lobby_pb2.DESCRIPTOR.services_by_name
    act = table_pb2.DESCRIPTOR.services_by_name["TableService"].methods_by_name["Act"].input_type
    assert [field.name for field in act.fields] == ["table_id", "expected_version", "action", "view_format"]
    watch = table_pb2.DESCRIPTOR.services_by_name["TableService"].methods_by_name["Watch"]
    assert watch.server_streaming and [f.name for f in watch.input_type.fields] == [
        "table_id",
        "after_event_id",
        "follow_view",
        "leave_out_own_acts",
        "view_format",
    ]
