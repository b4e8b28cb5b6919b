"""The wire: the only place that knows both the rules engine and the pepper.v1 messages.

- :mod:`.convert`: the reference conversion (views, events, outcomes) and reading answers;
- :mod:`.codec`: the hot path, protobuf bytes written directly (batches, requests, events);
- :mod:`.messages`: every other message the referee sends, built from plain values.

Layering: ``referee.rules`` (stdlib) <- this package <- ``referee.service``.

:mod:`.codec` and :mod:`.convert` are compiled by Cython from their own ``.py`` source where built (setup.py);
:data:`COMPILED` tells which is loaded, and ``PEPPER_PURE=1`` imports the ``.py`` files even where built.
"""

from referee.rules.sources import is_compiled as _is_compiled
from referee.rules.sources import prefer_sources as _prefer_sources

_prefer_sources(__path__[0])   # PEPPER_PURE=1: the .py files

from pepper_proto import PROTOCOL_VERSION
from pepper_proto.v1 import bot_pb2, control_pb2, game_pb2

from referee.defaults import DEFAULT_DEADLINE_MS, DEFAULT_TIME_BANK_MS

from . import codec, messages
from .codec import (
    ITEM_EVENT,
    ITEM_GAME_END,
    ITEM_GAME_START,
    ITEM_NOTICE,
    ITEM_REQUEST,
    GameEncoder,
    batch_response,
    item_frame,
    serialize_response,
)
from .convert import (
    ACTIONS_TEXT,
    EVENT_KIND,
    AnswerError,
    contract_to_proto,
    deal_result_to_proto,
    decision_kind,
    event_to_proto,
    legal_ids,
    legal_texts,
    outcome_to_proto,
    protocol_compatible,
    resolve_answer,
    ruleset_info,
    view_to_proto,
)
from .messages import fallback_name

#: Whether the compiled encoder is loaded (setup.py's COMPILED_MODULES built and imported), not its .py source.
COMPILED: bool = _is_compiled(codec)

__all__ = [
    "COMPILED", "DEFAULT_DEADLINE_MS", "DEFAULT_TIME_BANK_MS", "PROTOCOL_VERSION", "bot_pb2", "control_pb2", "game_pb2", "messages", "ITEM_EVENT", "ITEM_GAME_END",
    "ITEM_GAME_START", "ITEM_NOTICE", "ITEM_REQUEST", "GameEncoder", "batch_response", "item_frame",
    "serialize_response", "ACTIONS_TEXT", "EVENT_KIND", "AnswerError", "contract_to_proto", "deal_result_to_proto",
    "decision_kind", "event_to_proto", "fallback_name", "legal_ids", "legal_texts", "outcome_to_proto", "protocol_compatible",
    "resolve_answer", "ruleset_info", "view_to_proto",
]
