"""``python -m sample_bots.sdk run TARGET ...`` / ``python -m sample_bots.sdk check -- COMMAND...``"""

from .cli import app

app(prog_name="python -m sample_bots.sdk")
