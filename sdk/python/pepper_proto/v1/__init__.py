"""Generated from proto/ by tools/genproto.py. Do not edit by hand: run `make proto`."""
