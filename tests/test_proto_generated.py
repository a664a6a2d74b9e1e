"""The generated modules in arena/_gen match the .proto files."""

from __future__ import annotations

import subprocess
import sys
import tempfile
from pathlib import Path

from google.protobuf import descriptor_pb2
from grpc_health.v1 import health_pb2
from grpc_tools import protoc

ROOT = Path(__file__).resolve().parent.parent


def test_generated_code_is_up_to_date() -> None:
    result = subprocess.run(
        [sys.executable, str(ROOT / "proto" / "generate.py"), "--check"],
        capture_output=True,
        text=True,
    )
    assert result.returncode == 0, result.stderr


def _descriptor_set(proto: str) -> descriptor_pb2.FileDescriptorProto:
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "set.pb"
        args = ["protoc", f"-I{ROOT / 'proto'}", f"--descriptor_set_out={out}", proto]
        assert protoc.main(args) == 0
        files = descriptor_pb2.FileDescriptorSet.FromString(out.read_bytes()).file
    assert len(files) == 1
    return files[0]


def test_the_shipped_health_proto_is_the_standard_one() -> None:
    """proto/grpc/health/v1/health.proto defines exactly the wire interface of the gRPC
    project's health service, which the arena's runtime calls (grpcio-health-checking)."""
    shipped = _descriptor_set("grpc/health/v1/health.proto")
    standard = descriptor_pb2.FileDescriptorProto()
    health_pb2.DESCRIPTOR.CopyToProto(standard)
    assert shipped.name == "grpc/health/v1/health.proto"  # Python: grpc_health/…
    assert shipped.package == standard.package == "grpc.health.v1"
    messages = list(shipped.message_type)
    while messages:  # protoc adds json_name; the published descriptor omits it
        message = messages.pop()
        messages += message.nested_type
        for field in message.field:
            field.ClearField("json_name")
    assert shipped.message_type == standard.message_type
    assert shipped.service == standard.service
    assert shipped.options == standard.options


def test_bot_proto_names_a_package_for_each_generator_that_wants_one() -> None:
    options = _descriptor_set("spades/v1/bot.proto").options
    assert options.go_package.endswith(";spadesv1")
    assert options.java_package and options.csharp_namespace == "Spades.V1"
