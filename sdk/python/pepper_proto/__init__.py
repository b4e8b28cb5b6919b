"""Generated from proto/ by tools/genproto.py. Do not edit by hand: run `make proto`."""

# The pepper.v1 version this code was generated for (proto/VERSION); docs/protocol.md, Versioning.
PROTOCOL_VERSION = "1.8"
