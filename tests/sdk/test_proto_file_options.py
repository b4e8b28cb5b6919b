"""The generator options of proto/pepper/v1 (docs/bots-in-any-language.md): every file has the same ones, and
they never change. `buf breaking` does not compare them (proto/buf.yaml: 1.0 was published without them), so
this test does: a new value would move every bot's generated code to another package."""

from __future__ import annotations

import pytest
from pepper_proto.v1 import bot_pb2, control_pb2, game_pb2

OPTIONS = {
    "csharp_namespace": "PepperArena.Pepper.V1",
    "go_package": "pepperarena.dev/pepper/v1;pepperv1",
    "java_multiple_files": True,
    "java_package": "dev.pepperarena.pepper.v1",
    "objc_class_prefix": "PPR",
    "php_namespace": "PepperArena\\Pepper\\V1",
    "ruby_package": "PepperArena::Pepper::V1",
}


@pytest.mark.parametrize("module,outer", [(bot_pb2, "BotProto"), (control_pb2, "ControlProto"), (game_pb2, "GameProto")])
def test_every_file_has_the_generator_options(module, outer):
    opts = module.DESCRIPTOR.GetOptions()
    assert {k: getattr(opts, k) for k in OPTIONS} == OPTIONS, module.DESCRIPTOR.name
    assert opts.java_outer_classname == outer
    assert {f.name for f, _ in opts.ListFields()} == {*OPTIONS, "java_outer_classname"}, "an option no test pins"
